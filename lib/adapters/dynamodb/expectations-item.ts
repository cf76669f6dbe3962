/**
 * The `exp#<key>` item of DynamoExpectationsStore and its writes that carry
 * pod events' versions. Item: add, del (N: creates and deletes still
 * expected), timestampMs (N: when they were set), loweredThrough (N: the
 * newest pod event version that lowered the key's records; it outlives
 * them, see policy/observed-events.ts), lowerings (SS: ids of lowerings
 * without versions), expiresAt (TTL).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { ObservedCounts } from '../../policy/observed-events.js';
import {
  EXPECTATIONS_TIMEOUT_MS,
  type ExpectationsRecord,
  isExpired,
} from '../../reconcile/expectations.js';
import {
  buildExpression,
  conditionalWrite,
  type Item,
  isExpiredItem,
  num,
  readNumber,
  str,
} from './dynamo-call.js';
import { PARTITION_KEY, toEpochSeconds } from './table-schema.js';

/**
 * How long TTL keeps a record past the expectations timeout: covers clock
 * skew between Lambdas and DynamoDB, so TTL never deletes a live record.
 */
export const EXPECTATIONS_TTL_SLACK_MS = 60_000;

/**
 * The record exists, has not passed the expectations timeout, and TTL has
 * not expired it either.
 */
export const IS_UNEXPIRED_RECORD =
  'attribute_exists(#pk) AND #timestampMs >= :cutoff AND #expiresAt >= :nowS';

/** The TTL of an item written at `nowMs`, in epoch seconds. */
export const expectationsExpiresAt = (nowMs: number): number =>
  toEpochSeconds(nowMs + EXPECTATIONS_TIMEOUT_MS + EXPECTATIONS_TTL_SLACK_MS);

/** Returns the record an item holds; a malformed item counts as none. */
export const toRecord = (
  item: Item | undefined
): ExpectationsRecord | undefined => {
  const add = readNumber(item, 'add');
  const del = readNumber(item, 'del');
  const timestampMs = readNumber(item, 'timestampMs');
  if (add === undefined || del === undefined || timestampMs === undefined) {
    return undefined;
  }
  return { add, del, timestampMs };
};

/** Whether the item holds a record a lowering may change (IS_UNEXPIRED_RECORD). */
export const isLiveRecord = (
  item: Item | undefined,
  nowMs: number
): boolean => {
  const record = toRecord(item);
  return (
    record !== undefined &&
    !isExpiredItem(item, nowMs) &&
    !isExpired(record, nowMs)
  );
};

/** Where a write goes, and when it is made. */
export interface ExpectationsItemWrite {
  client: DynamoDBClient;
  tableName: string;
  pk: string;
  nowMs: number;
  operation: string;
}

/**
 * One conditional lowering by `counts`, moving loweredThrough to their
 * newest version: with `through` undefined, on condition that the record
 * was lowered through none of them; else that it is still lowered through
 * `through`. A failed condition returns the item as it was.
 */
export const lowerThrough = (
  w: ExpectationsItemWrite,
  counts: Required<ObservedCounts>,
  through: bigint | undefined
) =>
  conditionalWrite(w.operation, () =>
    w.client.send(
      new UpdateItemCommand({
        TableName: w.tableName,
        Key: { [PARTITION_KEY]: str(w.pk) },
        ...buildExpression({
          update:
            'ADD #add :negAdd, #del :negDel SET #loweredThrough = :newest',
          condition:
            through === undefined
              ? `${IS_UNEXPIRED_RECORD} AND (attribute_not_exists(#loweredThrough) OR #loweredThrough < :bound)`
              : `${IS_UNEXPIRED_RECORD} AND #loweredThrough = :bound`,
          values: {
            ':negAdd': num(-counts.add),
            ':negDel': num(-counts.del),
            ':newest': { N: String(counts.newest) },
            ':bound': { N: String(through ?? counts.oldest) },
            ':cutoff': num(w.nowMs - EXPECTATIONS_TIMEOUT_MS),
            ':nowS': num(toEpochSeconds(w.nowMs)),
          },
        }),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      })
    )
  );

/** Moves loweredThrough to `newest`, never back (no record needed). */
export const raiseThrough = async (
  w: ExpectationsItemWrite,
  newest: bigint
): Promise<void> => {
  await conditionalWrite(w.operation, () =>
    w.client.send(
      new UpdateItemCommand({
        TableName: w.tableName,
        Key: { [PARTITION_KEY]: str(w.pk) },
        ...buildExpression({
          update: 'SET #loweredThrough = :newest, #expiresAt = :expiresAt',
          condition:
            'attribute_not_exists(#loweredThrough) OR #loweredThrough < :newest',
          values: {
            ':newest': { N: String(newest) },
            ':expiresAt': num(expectationsExpiresAt(w.nowMs)),
          },
        }),
      })
    )
  );
};
