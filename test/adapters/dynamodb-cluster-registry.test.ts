import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoClusterRegistry } from '#lib/adapters/dynamodb/dynamo-cluster-registry.js';
import { DynamoStateError } from '#lib/adapters/dynamodb/dynamo-state-error.js';
import {
  KeyPrefix,
  partitionKey,
} from '#lib/adapters/dynamodb/table-schema.js';
import { InvalidClusterRecordError } from '#lib/cluster/record.js';
import type { ClusterRecord } from '#lib/ports/index.js';
import {
  createTestTable,
  readItem,
  type TestTable,
  writeItem,
} from '#test/helpers/dynamo-table.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';
import { selfSignedPem } from '../helpers/self-signed-pem.js';

let table: TestTable;
let caData: string;
let idCount = 0;

/** Returns a valid record with an id no other test uses. */
const newRecord = (over: Partial<ClusterRecord> = {}): ClusterRecord => ({
  id: `cluster-${++idCount}`,
  endpoint: 'https://api.example.com',
  caData,
  auth: {
    type: 'eks',
    clusterName: 'prod',
    region: 'eu-west-1',
    roleArn: 'arn:aws:iam::123456789012:role/dsr',
  },
  ownership: 'apps/v1',
  bridgeMode: 'watch',
  ...over,
});

const newRegistry = (t: TestTable = table) => {
  const clock = new FakeClock(Date.now());
  return { clock, registry: new DynamoClusterRegistry({ ...t, clock }) };
};

const pkOf = (id: string): string => partitionKey(KeyPrefix.cluster, id);

beforeAll(async () => {
  caData = Buffer.from(selfSignedPem()).toString('base64');
  table = await createTestTable(inject('dynamodbEndpoint'));
});
afterAll(() => {
  table.client.destroy();
});

describe('DynamoClusterRegistry', () => {
  it('stores a record as readable attributes and reads it back', async () => {
    // Prepare
    const { registry } = newRegistry();
    const record = newRecord();
    // Act
    await registry.put(record);
    const got = await newRegistry().registry.get(record.id);
    // Assess
    expect(got).toEqual(record);
    const item = await readItem(table, pkOf(record.id));
    expect(item?.kind).toEqual({ S: 'cluster' });
    expect(item?.endpoint).toEqual({ S: 'https://api.example.com' });
    expect(item?.auth?.M?.roleArn).toEqual({
      S: 'arn:aws:iam::123456789012:role/dsr',
    });
  });

  it('stores and reads back an API budget', async () => {
    // Prepare
    const { registry } = newRegistry();
    const record = newRecord({ apiBudget: { qps: 7.5, burst: 12 } });
    // Act
    await registry.put(record);
    const got = await newRegistry().registry.get(record.id);
    // Assess
    expect(got?.apiBudget).toEqual({ qps: 7.5, burst: 12 });
    const item = await readItem(table, pkOf(record.id));
    expect(item?.apiBudget?.M?.qps).toEqual({ N: '7.5' });
  });

  it('stores and reads back registration labels', async () => {
    // Prepare
    const { registry } = newRegistry();
    const record = newRecord({
      labels: { tier: 'prod', 'fleet.dsr.dev/wave': '2' },
    });
    // Act
    await registry.put(record);
    const got = await newRegistry().registry.get(record.id);
    // Assess
    expect(got?.labels).toEqual({ tier: 'prod', 'fleet.dsr.dev/wave': '2' });
    const item = await readItem(table, pkOf(record.id));
    expect(item?.labels?.M?.tier).toEqual({ S: 'prod' });
  });

  it('stores the empty endpoint and CA of a kubeconfig record', async () => {
    // Prepare
    const { registry } = newRegistry();
    const record = newRecord({
      endpoint: '',
      caData: '',
      auth: { type: 'kubeconfig', path: '/home/me/.kube/config' },
    });
    // Act
    await registry.put(record);
    const got = await newRegistry().registry.get(record.id);
    // Assess
    expect(got).toEqual(record);
  });

  it('returns undefined for a cluster never registered', async () => {
    // Act
    const got = await newRegistry().registry.get('nobody');
    // Assess
    expect(got).toBeUndefined();
  });

  it('refuses to store a bad record, naming the field', async () => {
    // Prepare
    const { registry } = newRegistry();
    const record = newRecord({ endpoint: 'http://api.example.com' });
    // Act
    const error = await registry.put(record).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(InvalidClusterRecordError);
    expect((error as InvalidClusterRecordError).fields).toEqual(['endpoint']);
    expect(await readItem(table, pkOf(record.id))).toBeUndefined();
  });

  it('names the bad field of a stored record it reads', async () => {
    // Prepare
    const record = newRecord();
    await newRegistry().registry.put(record);
    const item = await readItem(table, pkOf(record.id));
    await writeItem(table, pkOf(record.id), {
      ...item,
      bridgeMode: { N: '1' },
    });
    // Act
    const error = await newRegistry()
      .registry.get(record.id)
      .catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(InvalidClusterRecordError);
    expect((error as Error).message).toContain(record.id);
    expect((error as InvalidClusterRecordError).fields).toEqual(['bridgeMode']);
  });

  it('refuses an item whose id does not match its key', async () => {
    // Prepare
    const record = newRecord();
    await newRegistry().registry.put(record);
    const item = await readItem(table, pkOf(record.id));
    await writeItem(table, pkOf('someone-else'), { ...item });
    // Act
    const error = await newRegistry()
      .registry.get('someone-else')
      .catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(InvalidClusterRecordError);
    expect((error as InvalidClusterRecordError).fields).toEqual(['id']);
  });

  it('keeps get answers, also "not registered", for 60 s', async () => {
    // Prepare
    const { clock, registry } = newRegistry();
    const record = newRecord();
    const later = newRecord({ id: `${record.id}-later` });
    await newRegistry().registry.put(record);
    await registry.get(record.id);
    await registry.get(later.id);
    // Act: another instance changes both behind this one's back.
    const other = newRegistry().registry;
    await other.put({ ...record, bridgeMode: 'economy' });
    await other.put(later);
    clock.step(60_000 - 1);
    const cachedRecord = await registry.get(record.id);
    const cachedLater = await registry.get(later.id);
    clock.step(1);
    const freshRecord = await registry.get(record.id);
    const freshLater = await registry.get(later.id);
    // Assess
    expect(cachedRecord?.bridgeMode).toBe('watch');
    expect(cachedLater).toBeUndefined();
    expect(freshRecord?.bridgeMode).toBe('economy');
    expect(freshLater).toEqual(later);
  });

  it('sees its own put and remove at once', async () => {
    // Prepare
    const { registry } = newRegistry();
    const record = newRecord();
    await registry.get(record.id);
    // Act
    await registry.put(record);
    const afterPut = await registry.get(record.id);
    await registry.remove(record.id);
    const afterRemove = await registry.get(record.id);
    // Assess
    expect(afterPut).toEqual(record);
    expect(afterRemove).toBeUndefined();
    expect(await readItem(table, pkOf(record.id))).toBeUndefined();
  });

  it('does not let a caller change its cached record', async () => {
    // Prepare
    const { registry } = newRegistry();
    const record = newRecord();
    await registry.put(record);
    const first = await registry.get(record.id);
    // Act
    if (first) first.endpoint = 'https://mutated.example.com';
    const second = await registry.get(record.id);
    // Assess
    expect(second?.endpoint).toBe('https://api.example.com');
  });

  it('lists only cluster items, sorted by id', async () => {
    // Prepare
    const own = await createTestTable(inject('dynamodbEndpoint'));
    const { registry } = newRegistry(own);
    const b = newRecord({ id: 'b' });
    const a = newRecord({ id: 'a', bridgeMode: 'economy' });
    await registry.put(b);
    await registry.put(a);
    await writeItem(own, 'exp#a/ns/ds', { add: { N: '1' } });
    // Act
    const listed = await registry.list();
    // Assess
    expect(listed).toEqual({ records: [a, b], invalid: [] });
    own.client.destroy();
  });

  it('lists the registry with a Query of its index, reading no other item (F12: no Scan of the whole table)', async () => {
    // Prepare: one record among many state items.
    const own = await createTestTable(inject('dynamodbEndpoint'));
    const { registry } = newRegistry(own);
    const record = newRecord();
    await registry.put(record);
    for (let i = 0; i < 30; i++) {
      await writeItem(own, `lease#other-${i}`, { holder: { S: 'x' } });
    }
    const sent: { command: string; input: Record<string, unknown> }[] = [];
    own.client.middlewareStack.add(
      (next, context) => async (args) => {
        sent.push({
          command: context.commandName ?? '',
          input: args.input as Record<string, unknown>,
        });
        return next(args);
      },
      { step: 'initialize', name: 'recordCommands' }
    );
    // Act
    const listed = await registry.list();
    // Assess
    expect(listed.records).toEqual([record]);
    expect(sent.map((s) => s.command)).toEqual(['QueryCommand']);
    expect(sent[0]?.input).toMatchObject({ IndexName: 'registry' });
    own.client.destroy();
  });

  it('lists the valid records and names every bad item beside them, never failing the list (F1)', async () => {
    // Prepare
    const own = await createTestTable(inject('dynamodbEndpoint'));
    const { registry } = newRegistry(own);
    const good = newRecord({ id: 'good' });
    await registry.put(good);
    await registry.put(newRecord({ id: 'bad' }));
    const item = await readItem(own, pkOf('bad'));
    await writeItem(own, pkOf('bad'), {
      ...item,
      endpoint: { S: 'http://x' },
    });
    // Act
    const listed = await registry.list();
    // Assess
    expect(listed.records).toEqual([good]);
    expect(listed.invalid).toEqual([
      { key: pkOf('bad'), error: expect.stringContaining('endpoint') },
    ]);
    own.client.destroy();
  });

  it('turns a DynamoDB failure into a DynamoStateError', async () => {
    // Prepare
    const { registry } = newRegistry({ ...table, tableName: 'no-such-table' });
    // Act
    const error = await registry.get('x').catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(DynamoStateError);
    expect((error as DynamoStateError).operation).toBe('get cluster cluster#x');
  });
});
