/**
 * DynamoNodeIndexStore against DynamoDB Local: the node index round-trips,
 * with the node version it covers, and only the live lease holder can move
 * its head (a deposed bridge cannot overwrite its successor's index).
 */
import { gzipSync } from 'node:zlib';
import {
  type AttributeValue,
  type DynamoDBClient,
  PutItemCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoBridgeLeaseStore } from '#lib/adapters/dynamodb/dynamo-bridge-lease-store.js';
import {
  DynamoNodeIndexStore,
  MAX_INDEX_BYTES,
} from '#lib/adapters/dynamodb/dynamo-node-index-store.js';
import { BridgeLeaseLostError } from '#lib/errors.js';
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

/** The table's client, but every transaction and update fails (a crash). */
const crashingBeforeTheHead = (): DynamoDBClient =>
  new Proxy(table.client, {
    get: (target, p, receiver) =>
      p === 'send'
        ? (command: unknown) =>
            command instanceof TransactWriteItemsCommand ||
            command instanceof UpdateItemCommand
              ? Promise.reject(new Error('the process died'))
              : target.send(command as PutItemCommand)
        : Reflect.get(target, p, receiver),
  });

/** Every item of the cluster's index (head and shards), with its TTL. */
const indexItems = async (cluster: string) => {
  const { Items = [] } = await table.client.send(
    new ScanCommand({
      TableName: table.tableName,
      FilterExpression: 'begins_with(pk, :p)',
      ExpressionAttributeValues: { ':p': { S: `nodes#${cluster}` } },
      ConsistentRead: true,
    })
  );
  return Items.map((i) => ({
    pk: i.pk?.S ?? '',
    expiresAt: i.expiresAt?.N === undefined ? undefined : Number(i.expiresAt.N),
  }));
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
    expect(error).toBeInstanceOf(BridgeLeaseLostError);
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
    ).rejects.toThrow(BridgeLeaseLostError);
  });

  it('writes shards with a short TTL, so those of a save that never reached its head expire', async () => {
    // Prepare
    const { clock, leases } = stores();
    const cluster = newCluster();
    await leases.acquire(cluster, 'a', TTL_MS);
    const crashing = new DynamoNodeIndexStore({
      client: crashingBeforeTheHead(),
      tableName: table.tableName,
      clock,
    });
    // Act
    await crashing.save(cluster, index('1'), 'a', '1').catch(() => undefined);
    // Assess: the shard expires within the hour.
    const items = await indexItems(cluster);
    expect(items).toHaveLength(1);
    const nowS = clock.now() / 1_000;
    expect(items[0]?.expiresAt).toBeGreaterThan(nowS);
    expect(items[0]?.expiresAt).toBeLessThanOrEqual(nowS + 3_600 + 1);
  });

  it('keeps the current shards without a TTL and gives superseded ones a day', async () => {
    // Prepare
    const { clock, leases, nodes } = stores();
    const cluster = newCluster();
    await leases.acquire(cluster, 'a', TTL_MS);
    await nodes.save(cluster, index('1'), 'a', '1');
    const [first] = (await indexItems(cluster)).filter(
      (i) => i.pk !== `nodes#${cluster}`
    );
    // Act
    await nodes.save(cluster, index('2'), 'a', '2');
    // Assess
    const items = await indexItems(cluster);
    const nowS = clock.now() / 1_000;
    expect(items).toHaveLength(3);
    for (const item of items) {
      if (item.pk === first?.pk) {
        expect(item.expiresAt).toBeGreaterThan(nowS + 23 * 3_600);
      } else {
        expect(item).toEqual({ pk: item.pk, expiresAt: undefined });
      }
    }
  });

  it('forgets a cluster’s index, head and shards, and one that has none', async () => {
    // Prepare
    const { leases, nodes } = stores();
    const cluster = newCluster();
    await leases.acquire(cluster, 'a', TTL_MS);
    await nodes.save(cluster, index('1'), 'a', '1');
    // Act
    await nodes.forget(cluster);
    await nodes.forget(newCluster());
    // Assess: gone; a cluster without an index has nothing to forget.
    expect(await indexItems(cluster)).toEqual([]);
    expect(await nodes.load(cluster)).toEqual({ nodes: new Map() });
  });

  it('refuses an index that inflates past its limit (a gzip bomb)', async () => {
    // Prepare: a head naming one shard of valid JSON just over the limit.
    const { nodes } = stores();
    const cluster = newCluster();
    const json = `{"n1":{"labels":{"a":"${'a'.repeat(MAX_INDEX_BYTES)}"}}}`;
    const items: Record<string, AttributeValue>[] = [
      {
        pk: { S: `nodes#${cluster}` },
        version: { S: 'v' },
        shards: { N: '1' },
      },
      { pk: { S: `nodes#${cluster}#v#0` }, data: { B: gzipSync(json) } },
    ];
    for (const Item of items) {
      await table.client.send(
        new PutItemCommand({ TableName: table.tableName, Item })
      );
    }
    // Act / Assess
    await expect(nodes.load(cluster)).rejects.toThrow(/load node index/);
  });
});
