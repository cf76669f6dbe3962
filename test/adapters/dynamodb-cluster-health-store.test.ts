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
    await store.recordFailure('probe', 'timed out', () => 1_000, 0);
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
    await store.recordFailure('probe', 'timed out again', () => 2_000, 1);
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

  it('doubles the period once per failed probe: 1 s, 2 s, 4 s', async () => {
    // Act: each failure comes from a sync admitted under the one before.
    const opened = [];
    for (let seen = 0; seen < 3; seen++) {
      opened.push(
        await store.recordFailure(
          'c1',
          'ECONNREFUSED',
          clusterRetryAfterMs,
          seen
        )
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

  it('counts 10 concurrent failures of syncs admitted as healthy once (campaign seed 351: five counted failures kept a recovered cluster waiting 15 s)', async () => {
    // Act
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        store.recordFailure('c2', '503', clusterRetryAfterMs, 0)
      )
    );
    // Assess: one period of 1 s, and every caller was told so.
    const stored = await store.get('c2');
    expect(stored?.failures).toBe(1);
    expect(stored?.openUntilMs).toBe(clock.now() + 1_000);
    expect(new Set(results.map((r) => r.openUntilMs))).toEqual(
      new Set([clock.now() + 1_000])
    );
  });

  it('counts a failure whose write landed but whose answer was lost once when the SDK sends it again', async () => {
    // Prepare
    await store.recordFailure('c4', 'timed out', clusterRetryAfterMs, 0);
    // Act: the same failure, sent again with the count it was admitted under.
    const again = await store.recordFailure(
      'c4',
      'timed out',
      clusterRetryAfterMs,
      0
    );
    // Assess
    expect(again.failures).toBe(1);
    expect((await store.get('c4'))?.failures).toBe(1);
  });

  it('counts from nothing over a record past its TTL that DynamoDB has not deleted yet', async () => {
    // Prepare: three failures a day and more ago.
    for (let seen = 0; seen < 3; seen++) {
      await store.recordFailure('c5', 'old', clusterRetryAfterMs, seen);
    }
    clock.step(25 * 60 * 60_000);
    // Act: read as healthy, so admitted with 0 failures seen.
    const seen = await store.get('c5');
    const opened = await store.recordFailure(
      'c5',
      'new',
      clusterRetryAfterMs,
      0
    );
    // Assess
    expect(seen).toBeUndefined();
    expect(opened.failures).toBe(1);
    expect(await store.get('c5')).toMatchObject({
      failures: 1,
      lastError: 'new',
    });
  });

  it('frees the probe it claimed without a verdict, keeping the count, and leaves a newer claim alone', async () => {
    // Prepare: a half-open cluster, probed until +45 s.
    await store.recordFailure('release', 'timed out', () => 1_000, 0);
    clock.step(1_000);
    const until = clock.now() + 45_000;
    await store.claimProbe('release', until);
    // Act
    await store.releaseProbe('release', until - 1);
    const stale = await store.get('release');
    await store.releaseProbe('release', until);
    const released = await store.get('release');
    const next = await store.claimProbe('release', clock.now() + 45_000);
    // Assess
    expect(stale?.probeUntilMs).toBe(until);
    expect(released).toMatchObject({ failures: 1 });
    expect(released?.probeUntilMs).toBeUndefined();
    expect(next).toBe(true);
  });

  it('closes the breaker on reset', async () => {
    // Prepare
    await store.recordFailure('c3', 'Unauthorized', clusterRetryAfterMs, 0);
    // Act
    await store.reset('c3');
    // Assess
    expect(await store.get('c3')).toBeUndefined();
  });
});
