/**
 * DynamoFleetRolloutStore against DynamoDB Local: the store contract (each
 * case on a table of its own, so `list` sees only its records), then what
 * only the table shows: the items' layout, the registry index shared with
 * the cluster registry, and a history a racing write left over the limit.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoClusterRegistry } from '#lib/adapters/dynamodb/dynamo-cluster-registry.js';
import { DynamoFleetRolloutStore } from '#lib/adapters/dynamodb/dynamo-fleet-rollout-store.js';
import { DynamoStateError } from '#lib/adapters/dynamodb/dynamo-state-error.js';
import {
  KeyPrefix,
  partitionKey,
} from '#lib/adapters/dynamodb/table-schema.js';
import { idleFleetRollout } from '#lib/fleet/fleet-rollout-state.js';
import { FLEET_HISTORY_LIMIT } from '#lib/ports/fleet-rollouts.js';
import {
  createTestTable,
  readItem,
  type TestTable,
  writeItem,
} from '#test/helpers/dynamo-table.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';
import {
  fleetMember,
  fleetPolicy,
  fleetRolloutStoreContract,
} from '#test/helpers/fleet-rollout-store-contract.js';
import { selfSignedPem } from '../helpers/self-signed-pem.js';

const tables: TestTable[] = [];
let table: TestTable;

const newTable = async (): Promise<TestTable> => {
  const t = await createTestTable(inject('dynamodbEndpoint'));
  tables.push(t);
  return t;
};

const storeOn = (t: TestTable) =>
  new DynamoFleetRolloutStore({ ...t, clock: new FakeClock(Date.now()) });

const T0 = 1_700_000_000_000;

beforeAll(async () => {
  table = await newTable();
});
afterAll(() => {
  for (const t of tables) t.client.destroy();
});

describe('DynamoFleetRolloutStore', () => {
  describe('contract', () => {
    fleetRolloutStoreContract(async () => storeOn(await newTable()), {
      manyMembers: 250,
    });
  });

  it('keeps a record in readable attributes, listed by its kind, and members apart', async () => {
    // Prepare
    const store = storeOn(table);
    // Act
    await store.applyPolicy(fleetPolicy('layout'), 'v1', T0);
    await store.setControls(
      'layout',
      { approvedAtMs: { canary: T0 } },
      'approved canary',
      T0
    );
    await store.putDecisions([fleetMember('c1/ns/layout', 'layout')]);
    const record = await readItem(
      table,
      partitionKey(KeyPrefix.fleet, 'layout')
    );
    const member = await readItem(
      table,
      partitionKey(KeyPrefix.fleetMember, 'c1/ns/layout')
    );
    // Assess
    expect(record).toMatchObject({
      pk: { S: 'fleet#layout' },
      kind: { S: 'fleet-rollout' },
      source: { S: 'v1' },
      paused: { BOOL: false },
      approvedAtMs: { M: { canary: { N: String(T0) } } },
      history: {
        L: [
          {
            M: { atMs: { N: String(T0) }, note: { S: 'approved canary' } },
          },
        ],
      },
    });
    expect(JSON.parse(record?.state?.S ?? '')).toEqual(idleFleetRollout());
    expect(member?.pk).toEqual({ S: 'fleetm#c1/ns/layout' });
    expect(member?.kind).toBeUndefined();
  });

  it('shares the registry index with the cluster registry, each listing only its own', async () => {
    // Prepare
    const t = await newTable();
    const store = storeOn(t);
    const registry = new DynamoClusterRegistry({
      ...t,
      clock: new FakeClock(Date.now()),
    });
    await registry.put({
      id: 'c1',
      endpoint: 'https://api.example.com',
      caData: Buffer.from(selfSignedPem()).toString('base64'),
      auth: {
        type: 'eks',
        clusterName: 'prod',
        region: 'eu-west-1',
        roleArn: 'arn:aws:iam::123456789012:role/dsr',
      },
      ownership: 'apps/v1',
      bridgeMode: 'watch',
    });
    await store.applyPolicy(fleetPolicy('agent'), 'v1', T0);
    await store.putDecisions([fleetMember('c1/kube-system/agent')]);
    // Act
    const rollouts = await store.list();
    const clusters = await registry.list();
    // Assess
    expect(rollouts.map((r) => r.policy.name)).toEqual(['agent']);
    expect(clusters.records.map((r) => r.id)).toEqual(['c1']);
    expect(clusters.invalid).toEqual([]);
  });

  it('reads only the newest entries of a history a racing write left over the limit, and trims it on the next append', async () => {
    // Prepare
    const store = storeOn(table);
    await store.applyPolicy(fleetPolicy('raced'), 'v1', T0);
    const pk = partitionKey(KeyPrefix.fleet, 'raced');
    const stored = await readItem(table, pk);
    const entries = Array.from({ length: FLEET_HISTORY_LIMIT + 5 }, (_, i) => ({
      M: { atMs: { N: String(T0 + i) }, note: { S: `n${i}` } },
    }));
    await writeItem(table, pk, { ...stored, history: { L: entries } });
    // Act
    const read = await store.get('raced');
    await store.saveState('raced', idleFleetRollout(), ['next'], T0 + 999);
    const after = await readItem(table, pk);
    // Assess
    expect(read?.history).toHaveLength(FLEET_HISTORY_LIMIT);
    expect(read?.history[0]?.note).toBe('n5');
    expect(after?.history?.L).toHaveLength(FLEET_HISTORY_LIMIT);
    expect(after?.history?.L?.[0]?.M?.note?.S).toBe('n6');
    expect(after?.history?.L?.at(-1)?.M?.note?.S).toBe('next');
  });

  it('throws a DynamoStateError naming an item that holds no readable state', async () => {
    // Prepare
    const store = storeOn(table);
    await store.applyPolicy(fleetPolicy('broken'), 'v1', T0);
    const pk = partitionKey(KeyPrefix.fleet, 'broken');
    const stored = await readItem(table, pk);
    await writeItem(table, pk, { ...stored, state: { S: '{not json' } });
    // Act
    const error = await store.get('broken').catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(DynamoStateError);
    expect((error as Error).message).toContain('fleet#broken');
  });
});
