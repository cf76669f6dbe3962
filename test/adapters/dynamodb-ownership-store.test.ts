/** DynamoOwnershipStore against DynamoDB Local: sightings, window, fence. */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoOwnershipStore } from '#lib/adapters/dynamodb/dynamo-ownership-store.js';
import { FIGHT_WINDOW_MS } from '#lib/policy/fight-detection.js';
import { createTestTable, type TestTable } from '../helpers/dynamo-table.js';
import { FakeClock } from '../helpers/fakes/fake-clock.js';

describe('DynamoOwnershipStore', () => {
  let table: TestTable;
  const clock = new FakeClock();
  let store: DynamoOwnershipStore;

  beforeAll(async () => {
    table = await createTestTable(inject('dynamodbEndpoint'), { ttl: false });
    store = new DynamoOwnershipStore({ ...table, clock });
  });
  afterAll(() => table.client.destroy());

  it('counts distinct sightings and not the same writes seen again', async () => {
    // Act
    const counts = [
      await store.recordForeignWrites('c1', 'status by kcm at t1'),
      await store.recordForeignWrites('c1', 'status by kcm at t1'),
      await store.recordForeignWrites('c1', 'status by kcm at t2'),
    ];
    // Assess
    expect(counts).toEqual([1, 1, 2]);
  });

  it('counts the first sightings of two DaemonSets made at once as two (two DaemonSets fenced together fence the cluster)', async () => {
    // Act: several rounds, each a fresh item, both calls in flight at once.
    const rounds = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        Promise.all([
          store.recordForeignWrites(`race-${i}`, 'ns/a'),
          store.recordForeignWrites(`race-${i}`, 'ns/b'),
        ])
      )
    );
    // Assess: one of each pair counted 1, the other 2.
    expect(rounds.map((r) => [...r].sort())).toEqual(rounds.map(() => [1, 2]));
  });

  it('starts a new window once the old one ended', async () => {
    // Prepare
    await store.recordForeignWrites('c2', 'a');
    await store.recordForeignWrites('c2', 'b');
    clock.step(FIGHT_WINDOW_MS + 1);
    // Act / Assess
    expect(await store.recordForeignWrites('c2', 'c')).toBe(1);
  });

  it('keeps a fence until it is cleared', async () => {
    // Act
    await store.fence('c3', 'kcm is running');
    const fenced = await store.getFence('c3');
    await store.clearFence('c3');
    // Assess
    expect(fenced).toEqual({
      fencedAtMs: clock.now(),
      reason: 'kcm is running',
    });
    expect(await store.getFence('c3')).toBeUndefined();
  });

  it('ends a DaemonSet’s own fence after its TTL, and clears every DaemonSet fence of a cluster with the cluster’s', async () => {
    // Prepare
    await store.fence('c4/ns/a', 'rival on a', 60_000);
    await store.fence('c4/ns/b', 'rival on b', 3_600_000);
    await store.fence('c4', 'rival controller');
    await store.fence('c5/ns/a', 'rival elsewhere', 3_600_000);
    // TTLs are whole seconds.
    clock.step(61_000);
    const expired = await store.getFence('c4/ns/a');
    const stillOn = await store.getFence('c4/ns/b');
    // Act
    await store.clearFence('c4');
    // Assess
    expect(expired).toBeUndefined();
    expect(stillOn?.reason).toBe('rival on b');
    expect(await store.getFence('c4')).toBeUndefined();
    expect(await store.getFence('c4/ns/b')).toBeUndefined();
    expect((await store.getFence('c5/ns/a'))?.reason).toBe('rival elsewhere');
  });
});
