/**
 * ClusterSyncSlots, one contract for the DynamoDB store (on DynamoDB Local)
 * and the in-memory one: at most `max` holders of a cluster at once among
 * racing reconcilers, a released slot free at once, a crashed holder's slot
 * free once its time has passed, clusters apart.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoClusterSyncSlots } from '#lib/adapters/dynamodb/dynamo-cluster-sync-slots.js';
import { MemoryClusterSyncSlots } from '#lib/adapters/memory/memory-cluster-sync-slots.js';
import type { ClusterSyncSlots } from '#lib/ports/index.js';
import { createTestTable, type TestTable } from '#test/helpers/dynamo-table.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';
import { loseResponsesAfterCommit } from '#test/helpers/lose-response.js';

let table: TestTable;
let clusterCount = 0;
const newCluster = () => `slots-${++clusterCount}`;

beforeAll(async () => {
  table = await createTestTable(inject('dynamodbEndpoint'));
});
afterAll(() => {
  table.client.destroy();
});

const stores: [string, (clock: FakeClock) => ClusterSyncSlots][] = [
  [
    'DynamoClusterSyncSlots',
    (clock) => new DynamoClusterSyncSlots({ ...table, clock }),
  ],
  ['MemoryClusterSyncSlots', (clock) => new MemoryClusterSyncSlots({ clock })],
];

describe.each(stores)('%s', (_name, create) => {
  it('grants at most the share among racing holders, and a released slot at once', async () => {
    // Prepare
    const clock = new FakeClock(Date.now());
    const slots = create(clock);
    const cluster = newCluster();
    const until = clock.now() + 45_000;
    // Act
    const racing = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        slots.acquire(cluster, `r${i}`, 3, until)
      )
    );
    const winner = racing.indexOf(true);
    await slots.release(cluster, `r${winner}`);
    const afterRelease = await slots.acquire(cluster, 'late', 3, until);
    const elsewhere = await slots.acquire(newCluster(), 'other', 3, until);
    // Assess
    expect(racing.filter(Boolean)).toHaveLength(3);
    expect(afterRelease).toBe(true);
    expect(elsewhere).toBe(true);
  });

  it('frees the slot of a holder that died once its time has passed', async () => {
    // Prepare
    const clock = new FakeClock(Date.now());
    const slots = create(clock);
    const cluster = newCluster();
    await slots.acquire(cluster, 'crashed', 1, clock.now() + 45_000);
    const whileHeld = await slots.acquire(cluster, 'next', 1, clock.now() + 1);
    // Act
    clock.step(45_001);
    const afterExpiry = await slots.acquire(
      cluster,
      'next',
      1,
      clock.now() + 45_000
    );
    // Assess
    expect(whileHeld).toBe(false);
    expect(afterExpiry).toBe(true);
  });
});

describe('DynamoClusterSyncSlots after an SDK retry of a committed take (its response lost)', () => {
  it('still holds the slot it took, once, and frees it on release', async () => {
    // Prepare: a share of one; the take's first response is lost.
    const t = await createTestTable(inject('dynamodbEndpoint'));
    const lost = loseResponsesAfterCommit(
      t.client,
      'UpdateItemCommand',
      (input) => String(input.UpdateExpression ?? '').startsWith('ADD #held')
    );
    const clock = new FakeClock(Date.now());
    const slots = new DynamoClusterSyncSlots({ ...t, clock });
    const cluster = newCluster();
    const until = clock.now() + 45_000;
    // Act
    const taken = await slots.acquire(cluster, 'r1', 1, until);
    await slots.release(cluster, 'r1');
    const next = await slots.acquire(cluster, 'r2', 1, until);
    // Assess
    expect(lost.lost).toBe(1);
    expect(taken).toBe(true);
    expect(next).toBe(true);
    t.client.destroy();
  });
});
