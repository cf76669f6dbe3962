/**
 * DynamoExpectationsStore against DynamoDB Local: upstream
 * ControllerExpectations semantics, expiry, and lowers racing sets.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoExpectationsStore } from '#lib/adapters/dynamodb/dynamo-expectations-store.js';
import {
  KeyPrefix,
  partitionKey,
} from '#lib/adapters/dynamodb/table-schema.js';
import type { ObservedPodEvent } from '#lib/ports/index.js';
import { EXPECTATIONS_TIMEOUT_MS } from '#lib/reconcile/expectations.js';
import {
  createTestTable,
  readItem,
  type TestTable,
  writeItem,
} from '#test/helpers/dynamo-table.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';
import { loseResponsesAfterCommit } from '#test/helpers/lose-response.js';

const N = 20;
let table: TestTable;
let keyCount = 0;

/** Returns a key no other test uses. */
const newKey = (): string => `c1/default/ds-${++keyCount}`;
const pkOf = (key: string): string => partitionKey(KeyPrefix.expectations, key);

/** Whether a write is a lowering (sets and deletes are updates too). */
const isLowering = (input: Record<string, unknown>): boolean =>
  String(input.UpdateExpression).startsWith('ADD');

/** Pod events observing `kind`, one per version. */
const observed = (
  kind: 'creation' | 'deletion',
  ...versions: number[]
): ObservedPodEvent[] =>
  versions.map((v) => ({ observed: kind, resourceVersion: String(v) }));

const newStore = (t: TestTable = table) => {
  const clock = new FakeClock(Date.now());
  return { clock, store: new DynamoExpectationsStore({ ...t, clock }) };
};

/** A store on its own table whose first lowering's answer is lost after its commit. */
const storeLosingOneLowering = async () => {
  const t = await createTestTable(inject('dynamodbEndpoint'));
  const lost = loseResponsesAfterCommit(
    t.client,
    'UpdateItemCommand',
    isLowering
  );
  return { t, lost, ...newStore(t) };
};

beforeAll(async () => {
  table = await createTestTable(inject('dynamodbEndpoint'));
});
afterAll(() => {
  table.client.destroy();
});

describe('DynamoExpectationsStore', () => {
  it('is satisfied when the key has no record', async () => {
    // Prepare
    const { store } = newStore();
    // Act
    const satisfied = await store.satisfiedExpectations(newKey());
    // Assess
    expect(satisfied).toBe(true);
  });

  it('is unsatisfied until every expected create and delete is observed', async () => {
    // Prepare
    const { store } = newStore();
    const key = newKey();
    await store.setExpectations(key, 2, 1);
    // Act
    await store.creationObserved(key);
    const afterOne = await store.satisfiedExpectations(key);
    await store.creationObserved(key);
    const afterCreates = await store.satisfiedExpectations(key);
    await store.deletionObserved(key);
    const afterAll = await store.satisfiedExpectations(key);
    // Assess
    expect([afterOne, afterCreates, afterAll]).toEqual([false, false, true]);
    expect(await store.get(key)).toMatchObject({ add: 0, del: 0 });
  });

  it('lowers a record by the given amounts', async () => {
    // Prepare
    const { store } = newStore();
    const key = newKey();
    await store.setExpectations(key, 5, 4);
    // Act
    await store.lowerExpectations(key, 2, 3);
    // Assess
    expect(await store.get(key)).toMatchObject({ add: 3, del: 1 });
  });

  it('replaces the record on set, with a fresh timestamp, even with 0/0', async () => {
    // Prepare
    const { store, clock } = newStore();
    const key = newKey();
    await store.setExpectations(key, 3, 0);
    clock.step(1_000);
    // Act
    await store.setExpectations(key, 0, 0);
    // Assess
    expect(await store.get(key)).toEqual({
      add: 0,
      del: 0,
      timestampMs: clock.now(),
    });
  });

  it('counts a record as satisfied once the expectations timeout has passed', async () => {
    // Prepare
    const { store, clock } = newStore();
    const key = newKey();
    await store.setExpectations(key, 1, 0);
    clock.step(EXPECTATIONS_TIMEOUT_MS);
    const atTimeout = await store.satisfiedExpectations(key);
    // Act
    clock.step(1);
    const pastTimeout = await store.satisfiedExpectations(key);
    // Assess
    expect(atTimeout).toBe(false);
    expect(pastTimeout).toBe(true);
  });

  it('stores a TTL past the expectations timeout', async () => {
    // Prepare
    const { store, clock } = newStore();
    const key = newKey();
    // Act
    await store.setExpectations(key, 1, 0);
    // Assess
    const expiresAt = Number((await readItem(table, pkOf(key)))?.expiresAt?.N);
    expect(expiresAt * 1_000).toBeGreaterThan(
      clock.now() + EXPECTATIONS_TIMEOUT_MS
    );
  });

  it('never creates a record when lowering a key without one', async () => {
    // Prepare
    const { store } = newStore();
    const key = newKey();
    // Act
    await store.lowerExpectations(key, 1, 1);
    await store.creationObserved(key);
    await store.deletionObserved(key);
    // Assess
    expect(await readItem(table, pkOf(key))).toBeUndefined();
  });

  it('never lowers an expired record', async () => {
    // Prepare
    const { store, clock } = newStore();
    const key = newKey();
    await store.setExpectations(key, 1, 0);
    clock.step(EXPECTATIONS_TIMEOUT_MS + 1);
    // Act
    await store.creationObserved(key);
    // Assess
    expect((await readItem(table, pkOf(key)))?.add).toEqual({ N: '1' });
    expect(await store.get(key)).toBeUndefined();
  });

  it('deletes the record', async () => {
    // Prepare
    const { store } = newStore();
    const key = newKey();
    await store.setExpectations(key, 1, 0);
    // Act
    await store.deleteExpectations(key);
    // Assess: the counts go; the item stays only for the version it was
    // lowered through (none here), until TTL.
    const item = await readItem(table, pkOf(key));
    expect(item?.add).toBeUndefined();
    expect(item?.timestampMs).toBeUndefined();
    expect(await store.get(key)).toBeUndefined();
    expect(await store.satisfiedExpectations(key)).toBe(true);
  });

  it('never creates an item when deleting a key without one', async () => {
    const { store } = newStore();
    const key = newKey();
    await store.deleteExpectations(key);
    expect(await readItem(table, pkOf(key))).toBeUndefined();
  });

  describe('pod events replayed by a resumed bridge (lowerObserved)', () => {
    it('one-daemon-pod-per-node: counts each event once, across replayed and overlapping batches', async () => {
      // Prepare: four creates expected; a bridge lowered two and died
      // before its checkpoint.
      const { store } = newStore();
      const key = newKey();
      await store.setExpectations(key, 4, 1);
      await store.lowerObserved(key, observed('creation', 101, 102));
      // Act: its successor replays them with the next events, in batches
      // cut differently.
      await store.lowerObserved(key, observed('creation', 101));
      const afterReplay = await store.get(key);
      await store.lowerObserved(key, [
        ...observed('creation', 102, 103),
        ...observed('deletion', 104),
      ]);
      // Assess: one create is still unobserved, so no sync may act.
      expect(afterReplay).toMatchObject({ add: 2, del: 1 });
      expect(await store.get(key)).toMatchObject({ add: 1, del: 0 });
      expect(await store.satisfiedExpectations(key)).toBe(false);
    });

    it('never lowers a later record with events from before it, even when they came while no record was live', async () => {
      // Prepare: events lowered (or seen without a record), then the record
      // dropped and set anew by a redelivered sync.
      const { store } = newStore();
      const key = newKey();
      const bare = newKey();
      await store.setExpectations(key, 1, 0);
      await store.lowerObserved(key, observed('creation', 201));
      await store.deleteExpectations(key);
      await store.setExpectations(key, 1, 0);
      await store.lowerObserved(bare, observed('deletion', 202));
      await store.setExpectations(bare, 0, 1);
      // Act: a resumed bridge replays them.
      await store.lowerObserved(key, observed('creation', 201));
      await store.lowerObserved(bare, observed('deletion', 202));
      // Assess
      expect(await store.get(key)).toMatchObject({ add: 1 });
      expect(await store.get(bare)).toMatchObject({ del: 1 });
      await store.lowerObserved(key, observed('creation', 203));
      expect(await store.satisfiedExpectations(key)).toBe(true);
    });

    it('applies a lowering once when the SDK resends it after a lost answer', async () => {
      const { t, lost, store } = await storeLosingOneLowering();
      const key = newKey();
      await store.setExpectations(key, 3, 0);
      await store.lowerObserved(key, observed('creation', 301, 302));
      expect(lost.lost).toBe(1);
      expect(await store.get(key)).toMatchObject({ add: 1 });
      t.client.destroy();
    });

    it('lowers events without a numeric version by their counts', async () => {
      const { store } = newStore();
      const key = newKey();
      await store.setExpectations(key, 2, 1);
      await store.lowerObserved(key, [
        { observed: 'creation' },
        { observed: 'deletion', resourceVersion: 'x' },
      ]);
      expect(await store.get(key)).toMatchObject({ add: 1, del: 0 });
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

    it('treats the item as absent and never lowers it', async () => {
      // Prepare: a fresh-looking record whose expiresAt has passed.
      const { store, clock } = newStore(stale);
      const key = newKey();
      await writeItem(stale, pkOf(key), {
        add: { N: '2' },
        del: { N: '0' },
        timestampMs: { N: String(clock.now()) },
        expiresAt: { N: String(Math.floor(clock.now() / 1_000) - 60) },
      });
      // Act
      const satisfied = await store.satisfiedExpectations(key);
      await store.creationObserved(key);
      // Assess
      expect(satisfied).toBe(true);
      expect(await store.get(key)).toBeUndefined();
      expect((await readItem(stale, pkOf(key)))?.add).toEqual({ N: '2' });
    });
  });

  describe('races', () => {
    it('never creates a record from concurrent lowers of a key without one', async () => {
      // Prepare
      const { store } = newStore();
      const key = newKey();
      // Act
      await Promise.all(
        Array.from({ length: N }, (_, i) =>
          i % 2 === 0
            ? store.creationObserved(key)
            : store.deletionObserved(key)
        )
      );
      // Assess
      expect(await readItem(table, pkOf(key))).toBeUndefined();
    });

    it('loses no lower when many run at once', async () => {
      // Prepare
      const { store } = newStore();
      const key = newKey();
      await store.setExpectations(key, N, N);
      // Act
      await Promise.all(
        Array.from({ length: 2 * N }, (_, i) =>
          i % 2 === 0
            ? store.creationObserved(key)
            : store.deletionObserved(key)
        )
      );
      // Assess
      expect(await store.get(key)).toMatchObject({ add: 0, del: 0 });
      expect(await store.satisfiedExpectations(key)).toBe(true);
    });

    it('keeps a set that lands among lowers, lowered only by those after it', async () => {
      // Prepare
      const { store } = newStore();
      const key = newKey();
      // Act
      await Promise.all([
        ...Array.from({ length: N }, () => store.creationObserved(key)),
        store.setExpectations(key, N, 0),
      ]);
      // Assess
      const record = await store.get(key);
      expect(record?.del).toBe(0);
      expect(record?.add).toBeGreaterThanOrEqual(0);
      expect(record?.add).toBeLessThanOrEqual(N);
    });

    it('lets a set after lowers win', async () => {
      // Prepare
      const { store } = newStore();
      const key = newKey();
      await store.setExpectations(key, 3, 0);
      await Promise.all(
        Array.from({ length: N }, () => store.creationObserved(key))
      );
      // Act
      await store.setExpectations(key, 2, 1);
      // Assess
      expect(await store.get(key)).toMatchObject({ add: 2, del: 1 });
      expect(await store.satisfiedExpectations(key)).toBe(false);
    });
  });

  describe('an SDK retry after a committed write (its response lost)', () => {
    it('one-daemon-pod-per-node: a lowering is applied once, so expectations are not met before every create was observed (campaign seed 340)', async () => {
      // Prepare: two creates expected; the answer to the first lowering is
      // lost after DynamoDB applied it, and the SDK sends it again.
      const { t, lost, store } = await storeLosingOneLowering();
      const key = newKey();
      await store.setExpectations(key, 2, 0);
      // Act
      await store.creationObserved(key);
      // Assess: one create still unobserved, so no sync may act yet (a
      // second lowering would let it create a duplicate pod).
      expect(lost.lost).toBe(1);
      expect(await store.satisfiedExpectations(key)).toBe(false);
      expect((await store.get(key))?.add).toBe(1);
      await store.creationObserved(key);
      expect(await store.satisfiedExpectations(key)).toBe(true);
      t.client.destroy();
    });

    it('a batch lowering is applied once too', async () => {
      const { t, lost, store } = await storeLosingOneLowering();
      const key = newKey();
      await store.setExpectations(key, 5, 3);
      await store.lowerExpectations(key, 3, 2);
      expect(lost.lost).toBe(1);
      expect(await store.get(key)).toMatchObject({ add: 2, del: 1 });
      t.client.destroy();
    });
  });
});
