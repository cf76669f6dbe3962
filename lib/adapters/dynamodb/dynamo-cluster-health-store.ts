/**
 * ClusterHealthStore on the state table (`health#<cluster>` items), shared by
 * every reconciler of the cluster. A failure is one conditional write that
 * counts it and opens the breaker only if the count is the one its sync saw
 * when admitted (one escalation per period); a stale item (TTL lagging)
 * reads as healthy.
 */
import {
  DeleteItemCommand,
  GetItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type {
  Clock,
  ClusterHealth,
  ClusterHealthStore,
} from '../../ports/index.js';
import {
  buildExpression,
  callDynamo,
  conditionalWrite,
  isExpiredItem,
  num,
  readNumber,
  readString,
  str,
} from './dynamo-call.js';
import { DynamoStore } from './dynamo-store.js';
import { PARTITION_KEY, toEpochSeconds } from './table-schema.js';

const PREFIX = 'health#';
/** A health record outlives its last failure by a day. */
const HEALTH_TTL_MS = 24 * 60 * 60_000;
/** Error texts are cut to this length (they go to logs and `check`). */
const MAX_ERROR_LENGTH = 500;

/** Cluster health in DynamoDB. */
export class DynamoClusterHealthStore
  extends DynamoStore
  implements ClusterHealthStore
{
  #key(cluster: string) {
    return { [PARTITION_KEY]: str(`${PREFIX}${cluster}`) };
  }

  async get(cluster: string): Promise<ClusterHealth | undefined> {
    const { Item: item } = await callDynamo(`get health ${cluster}`, () =>
      this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: this.#key(cluster),
          ConsistentRead: true,
        })
      )
    );
    if (item === undefined || isExpiredItem(item, this.#clock.now())) {
      return undefined;
    }
    const probeUntilMs = readNumber(item, 'probeUntilMs');
    return {
      failures: readNumber(item, 'failures') ?? 0,
      openUntilMs: readNumber(item, 'openUntilMs') ?? 0,
      lastError: readString(item, 'lastError') ?? '',
      ...(probeUntilMs === undefined ? {} : { probeUntilMs }),
    };
  }

  get #clock(): Clock {
    return this.clock;
  }

  async recordFailure(
    cluster: string,
    error: string,
    retryAfterMs: (failures: number) => number,
    seenFailures: number
  ): Promise<ClusterHealth> {
    const now = this.#clock.now();
    const lastError = error.slice(0, MAX_ERROR_LENGTH);
    const failures = seenFailures + 1;
    const openUntilMs = now + retryAfterMs(failures);
    // A sync admitted as healthy may also find a record past its TTL (read
    // as healthy too, but not yet deleted): it counts from nothing.
    const counted = await conditionalWrite(`count failure ${cluster}`, () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: this.#key(cluster),
          ...buildExpression({
            update:
              'SET #failures = :failures, #openUntilMs = :until, #lastError = :error, #expiresAt = :expiresAt REMOVE #probeUntilMs',
            condition:
              seenFailures === 0
                ? 'attribute_not_exists(#failures) OR #expiresAt < :nowS'
                : '#failures = :seen',
            values: {
              ':failures': num(failures),
              ':until': num(openUntilMs),
              ':error': str(lastError),
              ':expiresAt': num(toEpochSeconds(now + HEALTH_TTL_MS)),
              ':seen': num(seenFailures),
              ':nowS': num(toEpochSeconds(now)),
            },
          }),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        })
      )
    );
    if (counted.ok) return { failures, openUntilMs, lastError };
    // Counted already in this period: the stored opening stands.
    return {
      failures: readNumber(counted.old, 'failures') ?? failures,
      openUntilMs: readNumber(counted.old, 'openUntilMs') ?? openUntilMs,
      lastError: readString(counted.old, 'lastError') ?? lastError,
    };
  }

  async claimProbe(cluster: string, untilMs: number): Promise<boolean> {
    const now = this.#clock.now();
    const outcome = await conditionalWrite(`claim probe ${cluster}`, () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: this.#key(cluster),
          ...buildExpression({
            update: 'SET #probeUntilMs = :until',
            condition:
              'attribute_exists(#failures) AND #openUntilMs <= :now AND (attribute_not_exists(#probeUntilMs) OR #probeUntilMs < :now)',
            values: { ':until': num(untilMs), ':now': num(now) },
          }),
        })
      )
    );
    return outcome.ok;
  }

  async releaseProbe(cluster: string, untilMs: number): Promise<void> {
    await conditionalWrite(`release probe ${cluster}`, () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: this.#key(cluster),
          ...buildExpression({
            update: 'REMOVE #probeUntilMs',
            condition: '#probeUntilMs = :until',
            values: { ':until': num(untilMs) },
          }),
        })
      )
    );
  }

  async reset(cluster: string): Promise<void> {
    await callDynamo(`reset health ${cluster}`, () =>
      this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: this.#key(cluster),
        })
      )
    );
  }
}
