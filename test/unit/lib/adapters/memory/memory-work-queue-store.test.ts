import { describe, expect, it } from 'vitest';
import {
  MemoryWorkQueueStore,
  QUEUE_ITEM_TTL_MS,
  STALE_TIMER_MS,
} from '#lib/adapters/memory/memory-work-queue-store.js';
import { DIRTY_MARK_TTL_MS, isMarked } from '#lib/workqueue/dirty-mark.js';
import { UNSENT_TIMER_MS } from '#lib/workqueue/timer-message.js';
import { abandonedTimerContract } from '#test/helpers/abandoned-timer-contract.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';
import { seenVersionsContract } from '#test/helpers/seen-versions-contract.js';
import { unsentMarksContract } from '#test/helpers/unsent-marks-contract.js';

const KEY = 'c1/default/ds';

const newStore = () => {
  const clock = new FakeClock();
  return { clock, store: new MemoryWorkQueueStore({ clock }) };
};

describe('MemoryWorkQueueStore', () => {
  describe('seen versions', () => {
    let keys = 0;
    seenVersionsContract(
      () => newStore().store,
      () => `c1/default/seen-${++keys}`
    );
  });

  describe('unsent marks (a sender that died between mark and send)', () => {
    let keys = 0;
    unsentMarksContract(newStore, () => `c1/default/unsent-${++keys}`);
  });

  describe('abandoned timers (a timer whose message could not be sent)', () => {
    let keys = 0;
    abandonedTimerContract(newStore, () => `c1/default/abandoned-${++keys}`);
  });

  describe('dirty marks', () => {
    it('marks a key once until the mark is cleared', async () => {
      // Prepare
      const { store } = newStore();
      // Act
      const first = isMarked(await store.markDirty(KEY));
      const second = isMarked(await store.markDirty(KEY));
      await store.clearDirty(KEY);
      const afterClear = isMarked(await store.markDirty(KEY));
      // Assess
      expect([first, second, afterClear]).toEqual([true, false, true]);
    });

    it('marks a key again once a sync has begun', async () => {
      // Prepare
      const { store } = newStore();
      await store.markDirty(KEY);
      // Act
      await store.beginSync(KEY);
      const again = isMarked(await store.markDirty(KEY));
      // Assess
      expect(again).toBe(true);
    });

    it('replaces a confirmed mark older than the dirty-mark TTL (its message was lost)', async () => {
      // Prepare
      const { store, clock } = newStore();
      // Its message was sent (confirmed), then lost.
      await store.markDirty(KEY, undefined, 'sent');
      await store.confirmMark(KEY, 'sent');
      clock.step(DIRTY_MARK_TTL_MS);
      const atTtl = isMarked(await store.markDirty(KEY));
      // Act
      clock.step(1);
      const pastTtl = isMarked(await store.markDirty(KEY));
      // Assess
      expect(atTtl).toBe(false);
      expect(pastTtl).toBe(true);
    });

    it('keeps marks of different keys apart', async () => {
      // Prepare
      const { store } = newStore();
      await store.markDirty(KEY);
      // Act
      const other = isMarked(await store.markDirty('c1/default/other'));
      // Assess
      expect(other).toBe(true);
    });
  });

  describe('failure ledger', () => {
    it('counts failures and returns them when a sync begins', async () => {
      // Prepare
      const { store } = newStore();
      // Act
      const counts = [
        await store.recordFailure(KEY),
        await store.recordFailure(KEY),
      ];
      const atSync = (await store.beginSync(KEY)).failures;
      // Assess
      expect(counts).toEqual([1, 2]);
      expect(atSync).toBe(2);
    });

    it('returns 0 when a sync of an unknown key begins', async () => {
      // Prepare
      const { store } = newStore();
      // Act
      const failures = (await store.beginSync(KEY)).failures;
      // Assess
      expect(failures).toBe(0);
    });

    it('forgets failures and counts from 1 again', async () => {
      // Prepare
      const { store } = newStore();
      await store.recordFailure(KEY);
      await store.recordFailure(KEY);
      // Act
      await store.forget(KEY);
      const atSync = (await store.beginSync(KEY)).failures;
      const next = await store.recordFailure(KEY);
      // Assess
      expect(atSync).toBe(0);
      expect(next).toBe(1);
    });

    it('drops the failures of a key untouched for longer than the item TTL', async () => {
      // Prepare
      const { store, clock } = newStore();
      await store.recordFailure(KEY);
      clock.step(QUEUE_ITEM_TTL_MS);
      const atTtl = (await store.beginSync(KEY)).failures;
      // Act
      clock.step(QUEUE_ITEM_TTL_MS + 1);
      const pastTtl = await store.recordFailure(KEY);
      // Assess
      expect(atTtl).toBe(1);
      expect(pastTtl).toBe(1);
    });

    it('counts every one of 10 concurrent failures', async () => {
      // Prepare
      const { store } = newStore();
      // Act
      const counts = await Promise.all(
        Array.from({ length: 10 }, () => store.recordFailure(KEY))
      );
      // Assess
      expect([...counts].sort((a, b) => a - b)).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
      ]);
      expect((await store.beginSync(KEY)).failures).toBe(10);
    });
  });

  describe('timers', () => {
    it('arms a timer and reports it armed by its token only', async () => {
      // Prepare
      const { store, clock } = newStore();
      // Act
      const token = await store.armTimer(KEY, clock.now() + 1_000);
      // Assess
      expect(token).toEqual(expect.any(String));
      expect(await store.isTimerArmed(KEY, token ?? '')).toBe(true);
      expect(await store.isTimerArmed(KEY, 'another')).toBe(false);
    });

    it('keeps a pending timer that fires no later than the new one', async () => {
      // Prepare
      const { store, clock } = newStore();
      const first = await store.armTimer(KEY, clock.now() + 1_000);
      // Act
      const same = await store.armTimer(KEY, clock.now() + 1_000);
      const later = await store.armTimer(KEY, clock.now() + 2_000);
      // Assess
      expect([same, later]).toEqual([undefined, undefined]);
      expect(await store.isTimerArmed(KEY, first ?? '')).toBe(true);
    });

    it('replaces a pending timer by an earlier one', async () => {
      // Prepare
      const { store, clock } = newStore();
      const late = await store.armTimer(KEY, clock.now() + 5_000);
      // Act
      const early = await store.armTimer(KEY, clock.now() + 1_000);
      // Assess
      expect(await store.isTimerArmed(KEY, early ?? '')).toBe(true);
      expect(await store.isTimerArmed(KEY, late ?? '')).toBe(false);
    });

    it('replaces a timer once its due time has passed (being fired, or its message was lost)', async () => {
      // Prepare
      const { store, clock } = newStore();
      const due = clock.now() + 1_000;
      await store.armTimer(KEY, due);
      clock.set(due + STALE_TIMER_MS);
      const overdue = await store.armTimer(KEY, clock.now() + 1_000);
      // Act
      clock.step(1);
      const stale = await store.armTimer(KEY, clock.now() + 1_000);
      // Assess
      expect(overdue).toBeUndefined();
      expect(stale).toEqual(expect.any(String));
    });

    it('keeps a timer due after the item TTL armed until it is due', async () => {
      // Prepare
      const { store, clock } = newStore();
      const due = clock.now() + 2 * QUEUE_ITEM_TTL_MS;
      const token = await store.armTimer(KEY, due);
      // Act
      clock.set(due);
      const armed = await store.isTimerArmed(KEY, token ?? '');
      // Assess
      expect(armed).toBe(true);
    });

    it('disarms the timer by its token, so a later one can be armed', async () => {
      // Prepare
      const { store, clock } = newStore();
      const token = await store.armTimer(KEY, clock.now() + 1_000);
      // Act
      await store.disarmTimer(KEY, token ?? '');
      const next = await store.armTimer(KEY, clock.now() + 9_000);
      // Assess
      expect(await store.isTimerArmed(KEY, token ?? '')).toBe(false);
      expect(next).toEqual(expect.any(String));
    });

    it('leaves the new timer armed when a stale token is disarmed', async () => {
      // Prepare
      const { store, clock } = newStore();
      const old = await store.armTimer(KEY, clock.now() + 5_000);
      const current = await store.armTimer(KEY, clock.now() + 1_000);
      // Act
      await store.disarmTimer(KEY, old ?? '');
      // Assess
      expect(await store.isTimerArmed(KEY, current ?? '')).toBe(true);
    });

    it('arms the earliest of concurrent timers', async () => {
      // Prepare
      const { store, clock } = newStore();
      const dues = [7, 3, 9, 1, 5].map((s) => clock.now() + s * 1_000);
      // Act
      const tokens = await Promise.all(
        dues.map((due) => store.armTimer(KEY, due))
      );
      // Assess
      const earliest = tokens[dues.indexOf(clock.now() + 1_000)];
      expect(await store.isTimerArmed(KEY, earliest ?? '')).toBe(true);
    });
  });
});

describe('MemoryWorkQueueStore timers never confirmed sent', () => {
  it('lets a later timer replace one armed UNSENT_TIMER_MS ago and never confirmed, not a confirmed one', async () => {
    // Prepare
    const { store, clock } = newStore();
    const orphan = await store.armTimer('a', clock.now() + 60_000);
    const sentDueAtMs = clock.now() + 60_000;
    const sent = await store.armTimer('b', sentDueAtMs);
    await store.confirmTimer('b', sent ?? '');
    await store.confirmTimer('b', 'not-the-token');
    // Act
    const early = await store.armTimer('a', clock.now() + 90_000);
    clock.step(UNSENT_TIMER_MS + 1);
    const replacing = await store.armTimer('a', clock.now() + 90_000);
    const blocked = await store.armTimer('b', clock.now() + 90_000);
    // Assess
    expect(orphan).toBeDefined();
    expect(early).toBeUndefined();
    expect(replacing).toBeDefined();
    expect(blocked).toBeUndefined();
    expect(await store.armedTimer('a')).toEqual({
      token: replacing,
      dueAtMs: clock.now() + 90_000,
      unsentSinceMs: clock.now(),
    });
    expect(await store.armedTimer('b')).toEqual({
      token: sent,
      dueAtMs: sentDueAtMs,
    });
    expect(await store.armedTimer('never')).toBeUndefined();
  });
});
