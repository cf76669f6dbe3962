/**
 * FailedPodBackoffStore on the state table (`fpb#<cluster/dsUID/gen/node>`
 * items): the entries of kube-controller-manager's `failedPodsBackoff`.
 *
 * Invariants: an entry not updated for more than 2 × 15 min reads as absent
 * (client-go `hasExpired`), whether or not TTL has deleted it yet; a put never
 * replaces a newer entry with an older one.
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { FailedPodBackoffStore } from '../../ports/index.js';
import {
  type BackoffEntry,
  FAILED_POD_BACKOFF,
  hasExpired,
} from '../../reconcile/backoff-policy.js';
import {
  buildExpression,
  callDynamo,
  conditionalWrite,
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
 * The stored entry is absent or not newer than the one being put: two syncs
 * that overlap (a message redelivered after its visibility timeout) keep the
 * later failure.
 */
const IS_NOT_NEWER =
  'attribute_not_exists(#pk) OR #lastUpdateMs <= :lastUpdateMs';

/** Failed-pod backoff entries kept in DynamoDB, one item per entry. */
export class DynamoFailedPodBackoffStore
  extends DynamoStore
  implements FailedPodBackoffStore
{
  /** Returns the entry (consistent read), or undefined when absent or stale. */
  async get(id: string): Promise<BackoffEntry | undefined> {
    const pk = partitionKey(KeyPrefix.failedPodBackoff, id);
    const { Item: item } = await callDynamo(`get backoff ${pk}`, () =>
      this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(pk) },
          ConsistentRead: true,
        })
      )
    );
    const now = this.clock.now();
    const delayMs = readNumber(item, 'delayMs');
    const lastUpdateMs = readNumber(item, 'lastUpdateMs');
    if (
      delayMs === undefined ||
      lastUpdateMs === undefined ||
      isExpiredItem(item, now)
    ) {
      return undefined;
    }
    const entry = { delayMs, lastUpdateMs };
    return hasExpired(entry, now, FAILED_POD_BACKOFF) ? undefined : entry;
  }

  /** Stores the entry unless a newer one is stored already. */
  async put(id: string, entry: BackoffEntry): Promise<void> {
    const pk = partitionKey(KeyPrefix.failedPodBackoff, id);
    // TTL may delete the entry once client-go would count it as expired.
    const expiresAt = toEpochSeconds(
      entry.lastUpdateMs + 2 * FAILED_POD_BACKOFF.maxMs
    );
    await conditionalWrite(`put backoff ${pk}`, () =>
      this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            [PARTITION_KEY]: str(pk),
            delayMs: num(entry.delayMs),
            lastUpdateMs: num(entry.lastUpdateMs),
            [TTL_ATTRIBUTE]: num(expiresAt),
          },
          ...buildExpression({
            condition: IS_NOT_NEWER,
            values: { ':lastUpdateMs': num(entry.lastUpdateMs) },
          }),
        })
      )
    );
  }
}
