/**
 * The dispatcher's tick over DynamoBridgeLeaseStore on DynamoDB Local, with
 * a client that may call only what the dispatcher's role grants on lease
 * items (BatchGetItem, UpdateItem): a lease item whose expiresAt has passed
 * but which TTL has not deleted yet counts as absent, and its cluster is
 * claimed and launched afresh, without a DeleteItem.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoBridgeLeaseStore } from '#lib/adapters/dynamodb/dynamo-bridge-lease-store.js';
import { BOOKMARK_RETENTION_MS } from '#lib/adapters/memory/memory-bridge-lease-store.js';
import { LEASE_TTL_MS } from '#lib/bridge/cluster-bridge.js';
import { dispatchBridgeTurns } from '#lib/bridge/dispatch-bridge-turns.js';
import type { BridgeTurn, ClusterRecord } from '#lib/ports/index.js';
import { createTestTable, type TestTable } from '#test/helpers/dynamo-table.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';
import { FakeLogger } from '#test/helpers/fakes/fake-logger.js';
import { MemoryClusterRegistry } from '#test/helpers/fakes/memory-cluster-registry.js';

/** The table as the bridge's role sees it, and as the dispatcher's does. */
let table: TestTable;
let dispatcher: TestTable;
let deleteCalls = 0;

/** Refuses DeleteItem the way IAM refuses an action the role lacks. */
const refuseDeletes = (client: DynamoDBClient): void => {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'DeleteItemCommand') {
        deleteCalls++;
        throw Object.assign(
          new Error('not authorized to perform: dynamodb:DeleteItem'),
          { name: 'AccessDeniedException', $fault: 'client', $metadata: {} }
        );
      }
      return next(args);
    },
    { step: 'initialize', name: 'refuseDeletes' }
  );
};

beforeAll(async () => {
  table = await createTestTable(inject('dynamodbEndpoint'));
  const client = new DynamoDBClient({
    endpoint: inject('dynamodbEndpoint'),
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  refuseDeletes(client);
  dispatcher = { client, tableName: table.tableName };
});
afterAll(() => {
  table.client.destroy();
  dispatcher.client.destroy();
});

const record = (id: string): ClusterRecord => ({
  id,
  endpoint: '',
  caData: '',
  auth: { type: 'kubeconfig', path: '/dev/null' },
  ownership: 'apps/v1',
  bridgeMode: 'economy',
});

describe('dispatchBridgeTurns over DynamoDB with the dispatcher’s rights', () => {
  it('launches a cluster whose lease item expired but is still stored, and its run starts afresh', async () => {
    // Prepare: the last run checkpointed and failed once, then nothing took
    // the lease for longer than the bookmarks are kept.
    const clock = new FakeClock(Date.now());
    const bridge = new DynamoBridgeLeaseStore({ ...table, clock });
    const leases = new DynamoBridgeLeaseStore({ ...dispatcher, clock });
    await bridge.acquire('stale', 'run-1', LEASE_TTL_MS);
    await bridge.checkpoint('stale', 'run-1', { pods: '7' }, LEASE_TTL_MS, {
      nodes: 3,
    });
    await bridge.recordFailure('stale', 'run-1');
    clock.step(LEASE_TTL_MS + BOOKMARK_RETENTION_MS + 60_000);
    const turns: BridgeTurn[] = [];
    const deps = {
      registry: new MemoryClusterRegistry([record('stale')]),
      leases,
      launcher: { launch: async (t: BridgeTurn) => void turns.push(t) },
      clock,
      logger: new FakeLogger(),
    };
    const opts = {
      tickId: 'tick-1',
      watchSeconds: 840,
      economySeconds: 20,
      clustersPerTurn: 10,
      nodesPerTurn: 5_000,
    };
    // Act
    const report = await dispatchBridgeTurns(deps, opts);
    const again = await dispatchBridgeTurns(deps, {
      ...opts,
      tickId: 'tick-2',
    });
    const view = (await leases.peek(['stale'])).get('stale');
    const versions = await bridge.acquire('stale', 'run-2', LEASE_TTL_MS);
    // Assess
    expect(turns.flatMap((t) => t.clusters.map((c) => c.cluster))).toEqual([
      'stale',
    ]);
    expect(report.failedClaims).toBe(0);
    expect(again.launched).toEqual([]);
    expect(view).toEqual({ leaseUntilMs: 0, claimedAtMs: clock.now() });
    expect(versions).toEqual({});
    expect(deleteCalls).toBe(0);
  });
});
