/** DynamoClusterHealthStore against DynamoDB Local. */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoClusterHealthStore } from '#lib/adapters/dynamodb/dynamo-cluster-health-store.js';
import { clusterRetryAfterMs } from '#lib/policy/cluster-health.js';
import { createTestTable, type TestTable } from '../helpers/dynamo-table.js';
import { FakeClock } from '../helpers/fakes/fake-clock.js';

describe('DynamoClusterHealthStore', () => {
  let table: TestTable;
  const clock = new FakeClock();
  let store: DynamoClusterHealthStore;

  beforeAll(async () => {
    table = await createTestTable(inject('dynamodbEndpoint'));
    store = new DynamoClusterHealthStore({ ...table, clock });
  });
  afterAll(() => table.client.destroy());

  it('grants one probe of a half-open cluster among racing syncs, none while open or healthy, and a failure ends it', async () => {
    // Prepare
    await store.recordFailure('probe', 'timed out', () => 1_000);
    const whileOpen = await store.claimProbe('probe', clock.now() + 45_000);
    const healthy = await store.claimProbe('never-failed', clock.now() + 1);
    clock.step(1_000);
    // Act
    const racing = await Promise.all(
      Array.from({ length: 5 }, () =>
        store.claimProbe('probe', clock.now() + 45_000)
      )
    );
    const probing = await store.get('probe');
    await store.recordFailure('probe', 'timed out again', () => 2_000);
    const afterFailure = await store.get('probe');
    clock.step(2_000);
    const next = await store.claimProbe('probe', clock.now() + 45_000);
    // Assess
    expect([whileOpen, healthy]).toEqual([false, false]);
    expect(racing.filter(Boolean)).toHaveLength(1);
    expect(probing?.probeUntilMs).toBe(clock.now() - 2_000 + 45_000);
    expect(afterFailure?.probeUntilMs).toBeUndefined();
    expect(next).toBe(true);
  });

  it('reads a cluster without failures as healthy', async () => {
    // Act / Assess
    expect(await store.get('fresh')).toBeUndefined();
  });

  it('counts failures and opens the breaker for 1 s, 2 s, 4 s', async () => {
    // Act
    const opened = [];
    for (let i = 0; i < 3; i++) {
      opened.push(
        await store.recordFailure('c1', 'ECONNREFUSED', clusterRetryAfterMs)
      );
    }
    // Assess
    expect(opened.map((h) => h.failures)).toEqual([1, 2, 3]);
    expect(opened.map((h) => h.openUntilMs - clock.now())).toEqual([
      1_000, 2_000, 4_000,
    ]);
    expect(await store.get('c1')).toEqual({
      failures: 3,
      openUntilMs: clock.now() + 4_000,
      lastError: 'ECONNREFUSED',
    });
  });

  it('counts every one of 10 concurrent failures and keeps the latest opening', async () => {
    // Act
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        store.recordFailure('c2', '503', clusterRetryAfterMs)
      )
    );
    // Assess
    const stored = await store.get('c2');
    expect(stored?.failures).toBe(10);
    expect(stored?.openUntilMs).toBe(
      Math.max(...results.map((r) => r.openUntilMs))
    );
  });

  it('closes the breaker on reset', async () => {
    // Prepare
    await store.recordFailure('c3', 'Unauthorized', clusterRetryAfterMs);
    // Act
    await store.reset('c3');
    // Assess
    expect(await store.get('c3')).toBeUndefined();
  });
});
