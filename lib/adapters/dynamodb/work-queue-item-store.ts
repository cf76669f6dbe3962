/**
 * The reads and writes of the work queue's `q#<key>` items, with the
 * item's expiry: a read or an update treats an expired item as absent, and
 * every update that sets state moves the expiry QUEUE_ITEM_TTL_MS past its
 * horizon. DynamoWorkQueueStore builds each queue operation on them.
 */
import { QUEUE_ITEM_TTL_MS } from '../memory/memory-work-queue-store.js';
import {
  type Expression,
  type Item,
  num,
  updateExistingItem,
  updateLiveItem,
} from './dynamo-call.js';
import { DynamoStore } from './dynamo-store.js';
import { KeyPrefix, partitionKey, toEpochSeconds } from './table-schema.js';

/** A store of `q#<key>` items: the work queue's bookkeeping per key. */
export abstract class WorkQueueItemStore extends DynamoStore {
  /** Reads the key's item (consistent); an expired one reads as absent. */
  protected read(operation: string, key: string): Promise<Item | undefined> {
    return this.readLiveItem(operation, this.#pk(key));
  }

  /**
   * Runs an update that treats an expired item as absent and moves the
   * item's expiry to QUEUE_ITEM_TTL_MS after `horizonMs` (default: now).
   */
  protected updateLive(
    operation: string,
    key: string,
    now: number,
    expression: Expression & { update: string },
    returnValues: 'NONE' | 'ALL_NEW' | 'UPDATED_NEW' = 'NONE',
    horizonMs = now
  ) {
    return updateLiveItem({
      client: this.client,
      tableName: this.tableName,
      pk: this.#pk(key),
      nowMs: now,
      operation,
      returnValues,
      ...expression,
      values: {
        ...expression.values,
        ':expiresAt': num(toEpochSeconds(horizonMs + QUEUE_ITEM_TTL_MS)),
      },
    });
  }

  /** Runs an update that only undoes state, on an existing item. */
  protected updateExisting(
    operation: string,
    key: string,
    expression: Expression & { update: string }
  ): Promise<void> {
    return updateExistingItem({
      client: this.client,
      tableName: this.tableName,
      pk: this.#pk(key),
      operation,
      ...expression,
    });
  }

  #pk(key: string): string {
    return partitionKey(KeyPrefix.workQueue, key);
  }
}
