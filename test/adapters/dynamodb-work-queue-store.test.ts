/**
 * DynamoWorkQueueStore against DynamoDB Local: dirty marks that coalesce
 * adds, the failure ledger, one timer per key, expired items, and each race
 * run with real concurrency.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoWorkQueueStore } from '#lib/adapters/dynamodb/dynamo-work-queue-store.js';
import {
  KeyPrefix,
  partitionKey,
} from '#lib/adapters/dynamodb/table-schema.js';
import {
  QUEUE_ITEM_TTL_MS,
  STALE_TIMER_MS,
} from '#lib/adapters/memory/memory-work-queue-store.js';
import { DIRTY_MARK_TTL_MS, isMarked } from '#lib/workqueue/dirty-mark.js';
import { UNSENT_TIMER_MS } from '#lib/workqueue/timer-message.js';
import { abandonedTimerContract } from '#test/helpers/abandoned-timer-contract.js';
import {
  createTestTable,
  readItem,
  type TestTable,
  writeItem,
} from '#test/helpers/dynamo-table.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';
import { loseResponsesAfterCommit } from '#test/helpers/lose-response.js';
import { seenVersionsContract } from '#test/helpers/seen-versions-contract.js';
import { unsentMarksContract } from '#test/helpers/unsent-marks-contract.js';

const N = 20;
let table: TestTable;
let keyCount = 0;

/** Returns a key no other test uses. */
const newKey = (): string => `c1/default/ds-${++keyCount}`;
const pkOf = (key: string): string => partitionKey(KeyPrefix.workQueue, key);

const newStore = (t: TestTable = table) => {
  const clock = new FakeClock(Date.now());
  return { clock, store: new DynamoWorkQueueStore({ ...t, clock }) };
};

beforeAll(async () => {
  table = await createTestTable(inject('dynamodbEndpoint'));
});
afterAll(() => {
  table.client.destroy();
});

describe('DynamoWorkQueueStore', () => {
  describe('seen versions', () => {
    seenVersionsContract(() => newStore().store, newKey);

    it('keeps no version that is not a number (its cluster reads no cache)', async () => {
      // Prepare
      const { store } = newStore();
      const key = newKey();
      // Act
      await store.markDirty(key, { collection: 'pods', resourceVersion: 'x7' });
      const start = await store.beginSync(key);
      // Assess
      expect(start.seen).toEqual({});
    });
  });

  describe('dirty marks', () => {
    it('marks a key once until the mark is cleared', async () => {
      // Prepare
      const { store } = newStore();
      const key = newKey();
      // Act
      const first = isMarked(await store.markDirty(key));
      const second = isMarked(await store.markDirty(key));
      await store.clearDirty(key);
      const afterClear = isMarked(await store.markDirty(key));
      // Assess
      expect([first, second, afterClear]).toEqual([true, false, true]);
    });

    it('marks a key again once a sync has begun', async () => {
      // Prepare
      const { store } = newStore();
      const key = newKey();
      await store.markDirty(key);
      // Act
      await store.beginSync(key);
      const again = isMarked(await store.markDirty(key));
      // Assess
      expect(again).toBe(true);
    });

    it('replaces a confirmed mark older than the dirty-mark TTL (its message was lost)', async () => {
      // Prepare
      const { store, clock } = newStore();
      const key = newKey();
      // Its message was sent (confirmed), then lost.
      await store.markDirty(key, undefined, 'sent');
      await store.confirmMark(key, 'sent');
      clock.step(DIRTY_MARK_TTL_MS);
      const atTtl = isMarked(await store.markDirty(key));
      // Act
      clock.step(1);
      const pastTtl = isMarked(await store.markDirty(key));
      // Assess
      expect(atTtl).toBe(false);
      expect(pastTtl).toBe(true);
    });

    it('creates no item when clearing a key never marked', async () => {
      // Prepare
      const { store } = newStore();
      const key = newKey();
      // Act
      await store.clearDirty(key);
      // Assess
      expect(await readItem(table, pkOf(key))).toBeUndefined();
    });
  });

  describe('failure ledger', () => {
    it('counts failures and returns them when a sync begins', async () => {
      // Prepare
      const { store } = newStore();
      const key = newKey();
      // Act
      const counts = [
        await store.recordFailure(key),
        await store.recordFailure(key),
      ];
      const atSync = (await store.beginSync(key)).failures;
      // Assess
      expect(counts).toEqual([1, 2]);
      expect(atSync).toBe(2);
    });

    it('returns 0 when a sync of an unknown key begins', async () => {
      // Prepare
      const { store } = newStore();
      // Act
      const failures = (await store.beginSync(newKey())).failures;
      // Assess
      expect(failures).toBe(0);
    });

    it('forgets failures and counts from 1 again', async () => {
      // Prepare
      const { store } = newStore();
      const key = newKey();
      await store.recordFailure(key);
      await store.recordFailure(key);
      // Act
      await store.forget(key);
      const atSync = (await store.beginSync(key)).failures;
      const next = await store.recordFailure(key);
      // Assess
      expect(atSync).toBe(0);
      expect(next).toBe(1);
    });

    it('creates no item when forgetting a key never seen', async () => {
      // Prepare
      const { store } = newStore();
      const key = newKey();
      // Act
      await store.forget(key);
      // Assess
      expect(await readItem(table, pkOf(key))).toBeUndefined();
    });
  });

  describe('timers', () => {
    it('arms a timer and reports it armed by its token only', async () => {
      // Prepare
      const { store, clock } = newStore();
      const key = newKey();
      // Act
      const token = await store.armTimer(key, clock.now() + 1_000);
      // Assess
      expect(token).toEqual(expect.any(String));
      expect(await store.isTimerArmed(key, token ?? '')).toBe(true);
      expect(await store.isTimerArmed(key, 'another')).toBe(false);
    });

    it('keeps a pending timer that fires no later than the new one', async () => {
      // Prepare
      const { store, clock } = newStore();
      const key = newKey();
      const first = await store.armTimer(key, clock.now() + 1_000);
      // Act
      const same = await store.armTimer(key, clock.now() + 1_000);
      const later = await store.armTimer(key, clock.now() + 2_000);
      // Assess
      expect([same, later]).toEqual([undefined, undefined]);
      expect(await store.isTimerArmed(key, first ?? '')).toBe(true);
    });

    it('replaces a pending timer by an earlier one', async () => {
      // Prepare
      const { store, clock } = newStore();
      const key = newKey();
      const late = await store.armTimer(key, clock.now() + 5_000);
      // Act
      const early = await store.armTimer(key, clock.now() + 1_000);
      // Assess
      expect(early).toEqual(expect.any(String));
      expect(await store.isTimerArmed(key, early ?? '')).toBe(true);
      expect(await store.isTimerArmed(key, late ?? '')).toBe(false);
    });

    it('replaces a timer once its due time has passed (being fired, or its message was lost)', async () => {
      // Prepare
      const { store, clock } = newStore();
      const key = newKey();
      const due = clock.now() + 1_000;
      await store.armTimer(key, due);
      clock.set(due + STALE_TIMER_MS);
      const overdue = await store.armTimer(key, clock.now() + 1_000);
      // Act
      clock.step(1);
      const stale = await store.armTimer(key, clock.now() + 1_000);
      // Assess
      expect(overdue).toBeUndefined();
      expect(stale).toEqual(expect.any(String));
    });

    it('keeps a timer due after the item TTL armed until it is due', async () => {
      // Prepare
      const { store, clock } = newStore();
      const key = newKey();
      const due = clock.now() + 2 * QUEUE_ITEM_TTL_MS;
      const token = await store.armTimer(key, due);
      // Act
      clock.set(due);
      const armed = await store.isTimerArmed(key, token ?? '');
      // Assess
      expect(armed).toBe(true);
    });

    it('disarms the timer by its token, so a later one can be armed', async () => {
      // Prepare
      const { store, clock } = newStore();
      const key = newKey();
      const token = await store.armTimer(key, clock.now() + 1_000);
      // Act
      await store.disarmTimer(key, token ?? '');
      const next = await store.armTimer(key, clock.now() + 9_000);
      // Assess
      expect(await store.isTimerArmed(key, token ?? '')).toBe(false);
      expect(next).toEqual(expect.any(String));
    });

    it('creates no item when disarming a key never armed', async () => {
      // Prepare
      const { store } = newStore();
      const key = newKey();
      // Act
      await store.disarmTimer(key, 'token');
      // Assess
      expect(await readItem(table, pkOf(key))).toBeUndefined();
    });
  });

  describe('when TTL has not yet deleted an expired item', () => {
    let stale: TestTable;
    beforeAll(async () => {
      stale = await createTestTable(inject('dynamodbEndpoint'), { ttl: false });
    });
    afterAll(() => {
      stale.client.destroy();
    });

    /** Stores a fresh-looking item whose expiresAt has passed. */
    const writeExpired = async (key: string, now: number): Promise<void> => {
      await writeItem(stale, pkOf(key), {
        dirty: { BOOL: true },
        dirtyAtMs: { N: String(now) },
        failures: { N: '5' },
        timerToken: { S: 'old' },
        timerDueAtMs: { N: String(now + 1_000) },
        expiresAt: { N: String(Math.floor(now / 1_000) - 60) },
      });
    };

    it('marks the key dirty', async () => {
      // Prepare
      const { store, clock } = newStore(stale);
      const key = newKey();
      await writeExpired(key, clock.now());
      // Act
      const marked = isMarked(await store.markDirty(key));
      // Assess
      expect(marked).toBe(true);
    });

    it('counts no earlier failures', async () => {
      // Prepare
      const { store, clock } = newStore(stale);
      const key = newKey();
      await writeExpired(key, clock.now());
      const other = newKey();
      await writeExpired(other, clock.now());
      // Act
      const atSync = (await store.beginSync(key)).failures;
      const failure = await store.recordFailure(other);
      // Assess
      expect(atSync).toBe(0);
      expect(failure).toBe(1);
    });

    it('holds no armed timer', async () => {
      // Prepare
      const { store, clock } = newStore(stale);
      const key = newKey();
      await writeExpired(key, clock.now());
      // Act
      const armed = await store.isTimerArmed(key, 'old');
      const later = await store.armTimer(key, clock.now() + 5_000);
      // Assess
      expect(armed).toBe(false);
      expect(later).toEqual(expect.any(String));
      expect(await store.isTimerArmed(key, 'old')).toBe(false);
    });
  });

  describe('races', () => {
    it('lets exactly one of 20 concurrent markDirty calls mark the key', async () => {
      // Prepare
      const { store } = newStore();
      const key = newKey();
      // Act
      const results = await Promise.all(
        Array.from({ length: N }, () => store.markDirty(key))
      );
      // Assess
      expect(results.filter(isMarked)).toHaveLength(1);
    });

    it('counts every one of 10 concurrent failures', async () => {
      // Prepare
      const { store } = newStore();
      const key = newKey();
      // Act
      const counts = await Promise.all(
        Array.from({ length: 10 }, () => store.recordFailure(key))
      );
      // Assess
      expect([...counts].sort((a, b) => a - b)).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
      ]);
      expect((await store.beginSync(key)).failures).toBe(10);
    });

    it('begins a sync with the failure count and clears the mark while failures and marks race', async () => {
      // Prepare
      const { store } = newStore();
      const key = newKey();
      await Promise.all(
        Array.from({ length: 3 }, () => store.recordFailure(key))
      );
      await store.markDirty(key);
      // Act
      const failures = (await store.beginSync(key)).failures;
      const marks = await Promise.all(
        Array.from({ length: N }, () => store.markDirty(key))
      );
      // Assess
      expect(failures).toBe(3);
      expect(marks.filter(isMarked)).toHaveLength(1);
    });

    it('arms the earliest of concurrent timers', async () => {
      // Prepare
      const { store, clock } = newStore();
      const key = newKey();
      // Due times in a shuffled order, so no arrival order favours the earliest.
      const dues = [7, 3, 9, 1, 5, 10, 2, 8, 4, 6].map(
        (s) => clock.now() + s * 1_000
      );
      // Act
      const tokens = await Promise.all(
        dues.map((due) => store.armTimer(key, due))
      );
      // Assess
      const earliest = tokens[dues.indexOf(clock.now() + 1_000)];
      expect(earliest).toEqual(expect.any(String));
      const armed = await Promise.all(
        tokens.map((t) => (t ? store.isTimerArmed(key, t) : false))
      );
      expect(armed.filter(Boolean)).toHaveLength(1);
      expect(await store.isTimerArmed(key, earliest ?? '')).toBe(true);
    });

    it('leaves the new timer armed when a stale token is disarmed', async () => {
      // Prepare
      const { store, clock } = newStore();
      const key = newKey();
      const old = await store.armTimer(key, clock.now() + 5_000);
      const current = await store.armTimer(key, clock.now() + 1_000);
      // Act
      await Promise.all([
        store.disarmTimer(key, old ?? ''),
        store.disarmTimer(key, old ?? ''),
      ]);
      // Assess
      expect(await store.isTimerArmed(key, current ?? '')).toBe(true);
    });
  });

  describe('unsent marks (a sender that died between mark and send)', () => {
    unsentMarksContract(newStore, newKey);
  });

  describe('abandoned timers (a timer whose message could not be sent)', () => {
    abandonedTimerContract(newStore, newKey);
  });

  describe('an SDK retry after a committed write (its response lost)', () => {
    const isOperation =
      (expression: string) => (input: Record<string, unknown>) =>
        String(input.UpdateExpression ?? '').includes(expression);

    it('markDirty still reports the mark as its own, so add sends', async () => {
      // Prepare
      const t = await createTestTable(inject('dynamodbEndpoint'));
      const lost = loseResponsesAfterCommit(
        t.client,
        'UpdateItemCommand',
        isOperation('#dirty = :true')
      );
      const { store } = newStore(t);
      const key = newKey();
      // Act
      const marked = isMarked(await store.markDirty(key));
      // Assess
      expect(lost.lost).toBe(1);
      expect(marked).toBe(true);
      expect(isMarked(await store.markDirty(key))).toBe(false);
      t.client.destroy();
    });

    it('armTimer still returns its token, so addAfter sends the timer message', async () => {
      // Prepare
      const t = await createTestTable(inject('dynamodbEndpoint'));
      const lost = loseResponsesAfterCommit(
        t.client,
        'UpdateItemCommand',
        isOperation('#timerToken = :token')
      );
      const { store, clock } = newStore(t);
      const key = newKey();
      // Act
      const token = await store.armTimer(key, clock.now() + 5_000);
      // Assess
      expect(lost.lost).toBe(1);
      expect(token).toBeDefined();
      expect(await store.isTimerArmed(key, token ?? '')).toBe(true);
      t.client.destroy();
    });
  });

  describe('a timer armed but never sent (the writer died in between)', () => {
    it('blocks a later timer only until UNSENT_TIMER_MS, then is replaced', async () => {
      // Prepare: armed for +60 s, message never sent, never confirmed.
      const { store, clock } = newStore();
      const key = newKey();
      const armedAt = clock.now();
      const orphan = await store.armTimer(key, armedAt + 60_000);
      // Act
      const seen = await store.armedTimer(key);
      const blocked = await store.armTimer(key, clock.now() + 90_000);
      clock.step(UNSENT_TIMER_MS + 1);
      const rearmed = await store.armTimer(key, clock.now() + 90_000);
      // Assess
      expect(orphan).toBeDefined();
      expect(seen).toEqual({
        token: orphan,
        dueAtMs: armedAt + 60_000,
        unsentSinceMs: armedAt,
      });
      expect(blocked).toBeUndefined();
      expect(rearmed).toBeDefined();
      expect(await store.isTimerArmed(key, rearmed ?? '')).toBe(true);
    });

    it('keeps blocking later timers once its message was sent (confirmed)', async () => {
      // Prepare
      const { store, clock } = newStore();
      const key = newKey();
      const dueAtMs = clock.now() + 60_000;
      const token = await store.armTimer(key, dueAtMs);
      await store.confirmTimer(key, token ?? '');
      // Act
      clock.step(UNSENT_TIMER_MS + 1);
      const later = await store.armTimer(key, clock.now() + 90_000);
      // Assess: no longer marked unsent
      expect(later).toBeUndefined();
      expect(await store.armedTimer(key)).toEqual({ token, dueAtMs });
    });
  });
});
