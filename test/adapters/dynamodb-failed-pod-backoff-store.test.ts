/**
 * DynamoFailedPodBackoffStore against DynamoDB Local: entries round-trip,
 * stale entries read as absent (client-go `hasExpired`), newer entries win.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoFailedPodBackoffStore } from '#lib/adapters/dynamodb/dynamo-failed-pod-backoff-store.js';
import {
  KeyPrefix,
  partitionKey,
} from '#lib/adapters/dynamodb/table-schema.js';
import { FAILED_POD_BACKOFF } from '#lib/reconcile/backoff-policy.js';
import {
  createTestTable,
  readItem,
  type TestTable,
  writeItem,
} from '#test/helpers/dynamo-table.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';

const HORIZON_MS = 2 * FAILED_POD_BACKOFF.maxMs;
let table: TestTable;
let idCount = 0;

/** Returns an entry id no other test uses. */
const newId = (): string => `c1/uid-${++idCount}/3/node-a`;
const pkOf = (id: string): string =>
  partitionKey(KeyPrefix.failedPodBackoff, id);

const newStore = (t: TestTable = table) => {
  const clock = new FakeClock(Date.now());
  return { clock, store: new DynamoFailedPodBackoffStore({ ...t, clock }) };
};

beforeAll(async () => {
  table = await createTestTable(inject('dynamodbEndpoint'));
});
afterAll(() => {
  table.client.destroy();
});

describe('DynamoFailedPodBackoffStore', () => {
  it('returns undefined for an id never stored', async () => {
    // Prepare
    const { store } = newStore();
    // Act
    const entry = await store.get(newId());
    // Assess
    expect(entry).toBeUndefined();
  });

  it('returns the entry it stored', async () => {
    // Prepare
    const { store, clock } = newStore();
    const id = newId();
    // Act
    await store.put(id, { delayMs: 4_000, lastUpdateMs: clock.now() });
    // Assess
    expect(await store.get(id)).toEqual({
      delayMs: 4_000,
      lastUpdateMs: clock.now(),
    });
  });

  it('stores a TTL at the last update plus twice the maximum delay', async () => {
    // Prepare
    const { store, clock } = newStore();
    const id = newId();
    // Act
    await store.put(id, { delayMs: 1_000, lastUpdateMs: clock.now() });
    // Assess
    expect((await readItem(table, pkOf(id)))?.expiresAt).toEqual({
      N: String(Math.ceil((clock.now() + HORIZON_MS) / 1_000)),
    });
  });

  it('reads an entry not updated for more than twice the maximum delay as absent', async () => {
    // Prepare
    const { store, clock } = newStore();
    const id = newId();
    await store.put(id, { delayMs: 1_000, lastUpdateMs: clock.now() });
    clock.step(HORIZON_MS);
    const atHorizon = await store.get(id);
    // Act
    clock.step(1);
    const pastHorizon = await store.get(id);
    // Assess
    expect(atHorizon).toBeDefined();
    expect(pastHorizon).toBeUndefined();
  });

  it('replaces an older entry', async () => {
    // Prepare
    const { store, clock } = newStore();
    const id = newId();
    await store.put(id, { delayMs: 1_000, lastUpdateMs: clock.now() });
    clock.step(5_000);
    // Act
    await store.put(id, { delayMs: 2_000, lastUpdateMs: clock.now() });
    // Assess
    expect(await store.get(id)).toEqual({
      delayMs: 2_000,
      lastUpdateMs: clock.now(),
    });
  });

  it('keeps a newer entry when an older one is put after it', async () => {
    // Prepare
    const { store, clock } = newStore();
    const id = newId();
    await store.put(id, { delayMs: 2_000, lastUpdateMs: clock.now() });
    // Act
    await store.put(id, { delayMs: 1_000, lastUpdateMs: clock.now() - 1 });
    // Assess
    expect(await store.get(id)).toEqual({
      delayMs: 2_000,
      lastUpdateMs: clock.now(),
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

    it('reads the item as absent', async () => {
      // Prepare: a fresh-looking entry whose expiresAt has passed.
      const { store, clock } = newStore(stale);
      const id = newId();
      await writeItem(stale, pkOf(id), {
        delayMs: { N: '8000' },
        lastUpdateMs: { N: String(clock.now()) },
        expiresAt: { N: String(Math.floor(clock.now() / 1_000) - 60) },
      });
      // Act
      const entry = await store.get(id);
      // Assess
      expect(entry).toBeUndefined();
      expect(await readItem(stale, pkOf(id))).toBeDefined();
    });
  });
});
