/**
 * The state table's shape as DynamoDB Local builds it from table-schema.ts,
 * and how every adapter reports a DynamoDB failure.
 */
import {
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoBridgeLeaseStore } from '#lib/adapters/dynamodb/dynamo-bridge-lease-store.js';
import { DynamoExpectationsStore } from '#lib/adapters/dynamodb/dynamo-expectations-store.js';
import { DynamoFailedPodBackoffStore } from '#lib/adapters/dynamodb/dynamo-failed-pod-backoff-store.js';
import { DynamoStateError } from '#lib/adapters/dynamodb/dynamo-state-error.js';
import { DynamoWorkQueueStore } from '#lib/adapters/dynamodb/dynamo-work-queue-store.js';
import {
  BILLING_MODE,
  PARTITION_KEY,
  TTL_ATTRIBUTE,
} from '#lib/adapters/dynamodb/table-schema.js';
import { createTestTable, type TestTable } from '#test/helpers/dynamo-table.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';

let table: TestTable;

beforeAll(async () => {
  table = await createTestTable(inject('dynamodbEndpoint'));
});
afterAll(() => {
  table.client.destroy();
});

describe('the state table', () => {
  it('has one string partition key, on-demand billing and TTL on expiresAt', async () => {
    // Prepare
    const { client, tableName } = table;
    // Act
    const { Table: described } = await client.send(
      new DescribeTableCommand({ TableName: tableName })
    );
    const { TimeToLiveDescription: ttl } = await client.send(
      new DescribeTimeToLiveCommand({ TableName: tableName })
    );
    // Assess
    expect(described?.KeySchema).toEqual([
      { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
    ]);
    expect(described?.AttributeDefinitions).toEqual([
      { AttributeName: PARTITION_KEY, AttributeType: 'S' },
      { AttributeName: 'kind', AttributeType: 'S' },
    ]);
    expect(described?.GlobalSecondaryIndexes).toMatchObject([
      {
        IndexName: 'registry',
        KeySchema: [{ AttributeName: 'kind', KeyType: 'HASH' }],
        Projection: { ProjectionType: 'ALL' },
      },
    ]);
    expect(described?.BillingModeSummary?.BillingMode).toBe(BILLING_MODE);
    expect(ttl).toMatchObject({
      AttributeName: TTL_ATTRIBUTE,
      TimeToLiveStatus: 'ENABLED',
    });
  });
});

describe('DynamoDB state adapters on a failing table', () => {
  const options = () => ({
    client: table.client,
    tableName: 'no-such-table',
    clock: new FakeClock(Date.now()),
  });
  const key = 'c1/default/ds';

  it.each([
    {
      name: 'satisfiedExpectations',
      call: () =>
        new DynamoExpectationsStore(options()).satisfiedExpectations(key),
    },
    {
      name: 'setExpectations',
      call: () =>
        new DynamoExpectationsStore(options()).setExpectations(key, 1, 0),
    },
    {
      name: 'lowerExpectations',
      call: () =>
        new DynamoExpectationsStore(options()).lowerExpectations(key, 1, 0),
    },
    {
      name: 'deleteExpectations',
      call: () =>
        new DynamoExpectationsStore(options()).deleteExpectations(key),
    },
    {
      name: 'backoff get',
      call: () => new DynamoFailedPodBackoffStore(options()).get(key),
    },
    {
      name: 'backoff put',
      call: () =>
        new DynamoFailedPodBackoffStore(options()).put(key, {
          delayMs: 1,
          lastUpdateMs: 1,
        }),
    },
    {
      name: 'markDirty',
      call: () => new DynamoWorkQueueStore(options()).markDirty(key),
    },
    {
      name: 'clearDirty',
      call: () => new DynamoWorkQueueStore(options()).clearDirty(key),
    },
    {
      name: 'beginSync',
      call: () => new DynamoWorkQueueStore(options()).beginSync(key),
    },
    {
      name: 'recordFailure',
      call: () => new DynamoWorkQueueStore(options()).recordFailure(key),
    },
    {
      name: 'forget',
      call: () => new DynamoWorkQueueStore(options()).forget(key),
    },
    {
      name: 'armTimer',
      call: () => new DynamoWorkQueueStore(options()).armTimer(key, 1),
    },
    {
      name: 'isTimerArmed',
      call: () => new DynamoWorkQueueStore(options()).isTimerArmed(key, 't'),
    },
    {
      name: 'disarmTimer',
      call: () => new DynamoWorkQueueStore(options()).disarmTimer(key, 't'),
    },
    {
      name: 'acquire',
      call: () => new DynamoBridgeLeaseStore(options()).acquire('c1', 'a', 1),
    },
    {
      name: 'checkpoint',
      call: () =>
        new DynamoBridgeLeaseStore(options()).checkpoint('c1', 'a', {}, 1),
    },
    {
      name: 'release',
      call: () => new DynamoBridgeLeaseStore(options()).release('c1', 'a'),
    },
  ])(
    '$name throws a DynamoStateError carrying the SDK error',
    async ({ call }) => {
      // Prepare: the table does not exist.
      // Act
      const error = await call().then(
        () => undefined,
        (e: unknown) => e
      );
      // Assess
      expect(error).toBeInstanceOf(DynamoStateError);
      expect((error as DynamoStateError).throttled).toBe(false);
      expect(((error as Error).cause as Error).name).toBe(
        'ResourceNotFoundException'
      );
    }
  );
});
