/**
 * The base of every DynamoDB adapter: the client, the state table and the
 * clock every expiry is judged by, taken in the constructor (Powertools'
 * `BasePersistenceLayer` plays the same part).
 */
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { Clock } from '../../ports/index.js';
import {
  callDynamo,
  type DynamoStoreOptions,
  type Item,
  isExpiredItem,
  str,
} from './dynamo-call.js';
import { PARTITION_KEY } from './table-schema.js';

/** Holds what every store of the state table needs. */
export abstract class DynamoStore {
  protected readonly client: DynamoDBClient;
  protected readonly tableName: string;
  protected readonly clock: Clock;

  constructor({ client, tableName, clock }: DynamoStoreOptions) {
    this.client = client;
    this.tableName = tableName;
    this.clock = clock;
  }

  /** Reads an item (consistent); an expired one reads as absent. */
  protected async readLiveItem(
    operation: string,
    pk: string
  ): Promise<Item | undefined> {
    const { Item: item } = await callDynamo(`${operation} ${pk}`, () =>
      this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(pk) },
          ConsistentRead: true,
        })
      )
    );
    return isExpiredItem(item, this.clock.now()) ? undefined : item;
  }
}
