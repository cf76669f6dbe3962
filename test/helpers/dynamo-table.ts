/**
 * Creates a fresh state table on DynamoDB Local for one test file or test,
 * from the same schema the adapters and the infrastructure use.
 */
import { randomUUID } from 'node:crypto';
import {
  type AttributeValue,
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  createTableInput,
  PARTITION_KEY,
  timeToLiveInput,
} from '#lib/adapters/dynamodb/table-schema.js';

/** A client for the emulator and the name of a table nobody else uses. */
export interface TestTable {
  client: DynamoDBClient;
  tableName: string;
}

/**
 * Returns a client and a new, uniquely named state table at `endpoint`. TTL
 * is enabled unless `ttl: false`: DynamoDB Local deletes expired items within
 * seconds, so tests of items that expired but are still present need it off.
 */
export const createTestTable = async (
  endpoint: string,
  { ttl = true }: { ttl?: boolean } = {}
): Promise<TestTable> => {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const tableName = `state-${randomUUID()}`;
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  if (ttl) {
    await client.send(new UpdateTimeToLiveCommand(timeToLiveInput(tableName)));
  }
  return { client, tableName };
};

/** Returns the item stored under `pk` as it is (consistent read). */
export const readItem = async (
  { client, tableName }: TestTable,
  pk: string
): Promise<Record<string, AttributeValue> | undefined> =>
  (
    await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: { [PARTITION_KEY]: { S: pk } },
        ConsistentRead: true,
      })
    )
  ).Item;

/** Stores `item` under `pk` as it is, bypassing every adapter. */
export const writeItem = async (
  { client, tableName }: TestTable,
  pk: string,
  item: Record<string, AttributeValue>
): Promise<void> => {
  await client.send(
    new PutItemCommand({
      TableName: tableName,
      Item: { ...item, [PARTITION_KEY]: { S: pk } },
    })
  );
};
