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
});
