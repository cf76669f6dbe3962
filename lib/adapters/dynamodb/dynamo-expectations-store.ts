/**
 * ExpectationsStore on the state table (`exp#<cluster/ns/name>` items):
 * upstream `ControllerExpectations` (pkg/controller/controller_utils.go) with
 * atomic counters, so watch events seen by many Lambdas lower one record.
 *
 * Invariants: a lower never creates a record nor revives an expired one; a
 * set replaces the record's counts with a fresh timestamp; an expired record
 * counts as satisfied even while TTL has not yet deleted it; a pod event
 * lowers a key's records once, however often a bridge replays it (the item
 * keeps the version it was lowered through: expectations-item.ts).
 */
import { randomUUID } from 'node:crypto';
import { GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import {
  type ObservedCounts,
  observedAfter,
  observedCounts,
} from '../../policy/observed-events.js';
import { parseResourceVersion } from '../../policy/resource-version.js';
import type { ExpectationsStore, ObservedPodEvent } from '../../ports/index.js';
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
  isExpiredItem,
  num,
  str,
} from './dynamo-call.js';
import { DynamoStateError } from './dynamo-state-error.js';
import { DynamoStore } from './dynamo-store.js';
import {
  type ExpectationsItemWrite,
  expectationsExpiresAt,
  IS_UNEXPIRED_RECORD,
  isLiveRecord,
  lowerThrough,
  raiseThrough,
  toRecord,
} from './expectations-item.js';
import {
  KeyPrefix,
  PARTITION_KEY,
  partitionKey,
  toEpochSeconds,
} from './table-schema.js';

/** A lowering retried this often finds the record changing under it. */
const MAX_LOWER_ATTEMPTS = 5;

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
    // An update, not a put: the version the record was lowered through
    // outlives it (a replayed event must not lower the next record).
    await callDynamo(`setExpectations ${this.#pk(key)}`, () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(this.#pk(key)) },
          ...buildExpression({
            update:
              'SET #add = :add, #del = :del, #timestampMs = :now, #expiresAt = :expiresAt REMOVE #lowerings',
            values: {
              ':add': num(add),
              ':del': num(del),
              ':now': num(now),
              ':expiresAt': num(expectationsExpiresAt(now)),
            },
          }),
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
    // The record goes; the version it was lowered through stays (see set).
    await conditionalWrite(`deleteExpectations ${this.#pk(key)}`, () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(this.#pk(key)) },
          ...buildExpression({
            update: 'REMOVE #add, #del, #timestampMs, #lowerings',
            condition: 'attribute_exists(#pk)',
            values: {},
          }),
        })
      )
    );
  }

  /**
   * Lowers by the events newer than the version the record was lowered
   * through, and moves that version to the newest of them; a record that
   * is not live only has the version moved (its next record must not count
   * these events either). Optimistic: the first write assumes no event of
   * the batch was counted; a replayed batch is recounted from the stored
   * version and written on condition that it still holds.
   */
  async lowerObserved(
    key: string,
    events: readonly ObservedPodEvent[]
  ): Promise<void> {
    // undefined: assume no event of the batch was counted yet.
    let through: bigint | undefined;
    for (let attempt = 0; attempt < MAX_LOWER_ATTEMPTS; attempt++) {
      const counts = observedAfter(events, through);
      if (counts === undefined) {
        const { add, del } = observedCounts(events);
        return this.lowerExpectations(key, add, del);
      }
      if (counts.newest === undefined) return;
      const outcome = await lowerThrough(
        this.#write(key),
        counts as Required<ObservedCounts>,
        through
      );
      if (outcome.ok) return;
      if (!isLiveRecord(outcome.old, this.clock.now())) {
        return raiseThrough(this.#write(key), counts.newest);
      }
      through = parseResourceVersion(outcome.old?.loweredThrough?.N);
    }
    throw new DynamoStateError(
      `lowerExpectations ${this.#pk(key)}: the record kept changing`
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

  #write(key: string): ExpectationsItemWrite {
    return {
      client: this.client,
      tableName: this.tableName,
      pk: this.#pk(key),
      nowMs: this.clock.now(),
      operation: `lowerExpectations ${this.#pk(key)}`,
    };
  }

  #pk(key: string): string {
    return partitionKey(KeyPrefix.expectations, key);
  }
}
