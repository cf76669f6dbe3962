/**
 * ExpectationsStore on the state table (`exp#<cluster/ns/name>` items):
 * upstream `ControllerExpectations` (pkg/controller/controller_utils.go) with
 * atomic counters, so watch events seen by many Lambdas lower one record.
 *
 * Invariants: a lower never creates a record nor revives an expired one; a
 * set replaces the record with a fresh timestamp; an expired record counts as
 * satisfied even while TTL has not yet deleted it.
 */
import { randomUUID } from 'node:crypto';
import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { ExpectationsStore } from '../../ports/index.js';
import {
  EXPECTATIONS_TIMEOUT_MS,
  type ExpectationsRecord,
  expectationsSatisfied,
  isExpired,
} from '../../reconcile/expectations.js';
import {
  buildExpression,
  callDynamo,
  conditionalWrite,
  type Item,
  isExpiredItem,
  num,
  readNumber,
  str,
} from './dynamo-call.js';
import { DynamoStore } from './dynamo-store.js';
import {
  KeyPrefix,
  PARTITION_KEY,
  partitionKey,
  TTL_ATTRIBUTE,
  toEpochSeconds,
} from './table-schema.js';

/**
 * How long TTL keeps a record past the expectations timeout: covers clock
 * skew between Lambdas and DynamoDB, so TTL never deletes a live record.
 */
export const EXPECTATIONS_TTL_SLACK_MS = 60_000;

/**
 * The record exists, has not passed the expectations timeout, and TTL has
 * not expired it either.
 */
const IS_UNEXPIRED_RECORD =
  'attribute_exists(#pk) AND #timestampMs >= :cutoff AND #expiresAt >= :nowS';

/** Expectations kept in DynamoDB, one item per DaemonSet key. */
export class DynamoExpectationsStore
  extends DynamoStore
  implements ExpectationsStore
{
  /**
   * Returns the live record (consistent read), or undefined when there is
   * none or it has passed the expectations timeout.
   */
  async get(key: string): Promise<ExpectationsRecord | undefined> {
    const now = this.clock.now();
    const record = await this.#read(key, 'get');
    return record === undefined || isExpired(record, now) ? undefined : record;
  }

  async satisfiedExpectations(key: string): Promise<boolean> {
    const record = await this.#read(key, 'satisfiedExpectations');
    return expectationsSatisfied(record, this.clock.now());
  }

  async setExpectations(key: string, add: number, del: number): Promise<void> {
    const now = this.clock.now();
    const expiresAt = toEpochSeconds(
      now + EXPECTATIONS_TIMEOUT_MS + EXPECTATIONS_TTL_SLACK_MS
    );
    await callDynamo(`setExpectations ${this.#pk(key)}`, () =>
      this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            [PARTITION_KEY]: str(this.#pk(key)),
            add: num(add),
            del: num(del),
            timestampMs: num(now),
            [TTL_ATTRIBUTE]: num(expiresAt),
          },
        })
      )
    );
  }

  async lowerExpectations(
    key: string,
    add: number,
    del: number
  ): Promise<void> {
    // Lowering by nothing changes nothing: save the write.
    if (add === 0 && del === 0) return;
    const now = this.clock.now();
    // ADD is not idempotent, and the SDK resends a write whose answer was
    // lost after it committed: the lowering carries an id that the record
    // remembers (a set replaces the record, and the ids with it), so the
    // resend finds it and lowers nothing twice — a count lowered twice would
    // let a sync act before its creates are in the cache (a duplicate pod).
    const lowering = randomUUID();
    // A failed condition means no record, an expired one, or this lowering
    // already applied: upstream lowers nothing it does not hold.
    await conditionalWrite(`lowerExpectations ${this.#pk(key)}`, () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(this.#pk(key)) },
          ...buildExpression({
            update: 'ADD #add :negAdd, #del :negDel, #lowerings :lowerings',
            condition: `${IS_UNEXPIRED_RECORD} AND NOT contains(#lowerings, :lowering)`,
            values: {
              ':negAdd': num(-add),
              ':negDel': num(-del),
              ':lowerings': { SS: [lowering] },
              ':lowering': str(lowering),
              ':cutoff': num(now - EXPECTATIONS_TIMEOUT_MS),
              ':nowS': num(toEpochSeconds(now)),
            },
          }),
          ReturnValuesOnConditionCheckFailure: 'NONE',
        })
      )
    );
  }

  async creationObserved(key: string): Promise<void> {
    await this.lowerExpectations(key, 1, 0);
  }

  async deletionObserved(key: string): Promise<void> {
    await this.lowerExpectations(key, 0, 1);
  }

  async deleteExpectations(key: string): Promise<void> {
    await callDynamo(`deleteExpectations ${this.#pk(key)}`, () =>
      this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(this.#pk(key)) },
        })
      )
    );
  }

  /** Returns the stored record as it is, expired or not. */
  async #read(
    key: string,
    operation: string
  ): Promise<ExpectationsRecord | undefined> {
    const { Item: item } = await callDynamo(
      `${operation} ${this.#pk(key)}`,
      () =>
        this.client.send(
          new GetItemCommand({
            TableName: this.tableName,
            Key: { [PARTITION_KEY]: str(this.#pk(key)) },
            ConsistentRead: true,
          })
        )
    );
    return isExpiredItem(item, this.clock.now()) ? undefined : toRecord(item);
  }

  #pk(key: string): string {
    return partitionKey(KeyPrefix.expectations, key);
  }
}

/** Returns the record an item holds; a malformed item counts as none. */
const toRecord = (item: Item | undefined): ExpectationsRecord | undefined => {
  const add = readNumber(item, 'add');
  const del = readNumber(item, 'del');
  const timestampMs = readNumber(item, 'timestampMs');
  if (add === undefined || del === undefined || timestampMs === undefined) {
    return undefined;
  }
  return { add, del, timestampMs };
};
