/**
 * DynamoNodeIndexStore against DynamoDB Local: the node index round-trips,
 * with the node version it covers, and only the live lease holder can move
 * its head (a deposed bridge cannot overwrite its successor's index).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoBridgeLeaseStore } from '#lib/adapters/dynamodb/dynamo-bridge-lease-store.js';
import { DynamoNodeIndexStore } from '#lib/adapters/dynamodb/dynamo-node-index-store.js';
import { LeaseLostError } from '#lib/errors.js';
import type { NodeFacts } from '#lib/reconcile/event-keys/resumed.js';
import { createTestTable, type TestTable } from '#test/helpers/dynamo-table.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';

const TTL_MS = 30_000;
let table: TestTable;
let clusterCount = 0;
const newCluster = () => `index-${++clusterCount}`;

const index = (label: string): Map<string, NodeFacts> =>
  new Map([
    ['n1', { labels: { zone: label } }],
    [
      'n2',
      { labels: { zone: label }, taints: [{ key: 'k', effect: 'NoSchedule' }] },
    ],
  ]);

const stores = () => {
  const clock = new FakeClock(Date.now());
  return {
    clock,
    leases: new DynamoBridgeLeaseStore({ ...table, clock }),
    nodes: new DynamoNodeIndexStore({ ...table, clock }),
  };
};

beforeAll(async () => {
  table = await createTestTable(inject('dynamodbEndpoint'));
});
afterAll(() => {
  table.client.destroy();
});

describe('DynamoNodeIndexStore', () => {
  it('stores the holder’s index and loads it back with the node version it covers; an unknown cluster has none', async () => {
    // Prepare
    const { leases, nodes } = stores();
    const cluster = newCluster();
    await leases.acquire(cluster, 'a', TTL_MS);
    // Act
    await nodes.save(cluster, index('1'), 'a', '1');
    await nodes.save(cluster, index('2'), 'a', '2');
    // Assess
    expect(await nodes.load(cluster)).toEqual({
      nodes: index('2'),
      resourceVersion: '2',
    });
    expect(await nodes.load(newCluster())).toEqual({ nodes: new Map() });
  });

  it('refuses a save by a bridge whose lease was taken over, keeping the successor’s index', async () => {
    // Prepare: a's lease runs out; b takes over and saves.
    const { clock, leases, nodes } = stores();
    const cluster = newCluster();
    await leases.acquire(cluster, 'a', TTL_MS);
    await nodes.save(cluster, index('a'), 'a', '10');
    clock.step(TTL_MS + 1);
    await leases.acquire(cluster, 'b', TTL_MS);
    await nodes.save(cluster, index('b'), 'b', '20');
    // Act
    const error = await nodes
      .save(cluster, index('stale'), 'a', '9')
      .catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(await nodes.load(cluster)).toEqual({
      nodes: index('b'),
      resourceVersion: '20',
    });
  });

  it('refuses a save by a bridge that never held the lease', async () => {
    // Prepare
    const { nodes } = stores();
    // Act / Assess
    await expect(
      nodes.save(newCluster(), index('x'), 'nobody', '1')
    ).rejects.toThrow(LeaseLostError);
  });
});
