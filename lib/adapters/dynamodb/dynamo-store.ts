/**
 * The base of every DynamoDB adapter: the client, the state table and the
 * clock every expiry is judged by, taken in the constructor (Powertools'
 * `BasePersistenceLayer` plays the same part).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Clock } from '../../ports/index.js';
import type { DynamoStoreOptions } from './dynamo-call.js';

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
}
