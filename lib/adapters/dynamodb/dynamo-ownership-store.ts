/**
 * OwnershipStore on the state table: `fight#<cluster>` counts foreign-write
 * observations within a window (the item expires with the window, and a
 * reader treats an expired window as empty); `fence#<cluster>` stops the
 * reconciler acting on the cluster and has no TTL: only an operator clears it.
 * The same two items exist per DaemonSet (`fight#<cluster/ns/name>`,
 * `fence#<cluster/ns/name>`); a DaemonSet's fence expires.
 */
import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { FIGHT_WINDOW_MS } from '../../policy/fight-detection.js';
import type { OwnershipFence, OwnershipStore } from '../../ports/index.js';
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
import { DynamoStateError } from './dynamo-state-error.js';
import { DynamoStore } from './dynamo-store.js';
import { PARTITION_KEY, toEpochSeconds } from './table-schema.js';

const key = (pk: string) => ({ [PARTITION_KEY]: str(pk) });

/** Fight detection state in DynamoDB. */
export class DynamoOwnershipStore
  extends DynamoStore
  implements OwnershipStore
{
  async getFence(cluster: string): Promise<OwnershipFence | undefined> {
    const { Item: item } = await callDynamo(`get fence ${cluster}`, () =>
      this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: key(`fence#${cluster}`),
          ConsistentRead: true,
        })
      )
    );
    const fencedAtMs = readNumber(item, 'fencedAtMs');
    if (fencedAtMs === undefined) return undefined;
    if (isExpiredItem(item, this.clock.now())) return undefined;
    return { fencedAtMs, reason: readString(item, 'reason') ?? '' };
  }

  async recordForeignWrites(cluster: string, detail: string): Promise<number> {
    const shown = detail.slice(0, 500);
    // A window another caller starts between our count and our start is
    // counted into on the next round (two DaemonSets fenced at once must
    // count two, or the cluster is never fenced).
    for (let round = 0; ; round++) {
      const counted = await this.#countInWindow(cluster, shown);
      if (counted !== undefined) return counted;
      if (await this.#startWindow(cluster, shown)) return 1;
      if (round > 0) {
        throw new DynamoStateError(
          `count fight ${cluster}: its window kept changing`
        );
      }
    }
  }

  /**
   * Counts a sighting within the current window: its count (the same
   * writes seen again are not counted twice), or undefined when no window
   * is running.
   */
  async #countInWindow(
    cluster: string,
    detail: string
  ): Promise<number | undefined> {
    const now = this.clock.now();
    const counted = await conditionalWrite(`count fight ${cluster}`, () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: key(`fight#${cluster}`),
          ...buildExpression({
            update: 'ADD #count :one SET #detail = :detail',
            condition: '#windowEndMs > :now AND #detail <> :detail',
            values: {
              ':one': num(1),
              ':now': num(now),
              ':detail': str(detail),
            },
          }),
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        })
      )
    );
    if (counted.ok) return readNumber(counted.attributes, 'count') ?? 1;
    const old = counted.old;
    if ((readNumber(old, 'windowEndMs') ?? 0) <= now) return undefined;
    return readNumber(old, 'count') ?? 1; // the same writes, seen again
  }

  /** Starts a window with this sighting; false if another one just began. */
  async #startWindow(cluster: string, detail: string): Promise<boolean> {
    const now = this.clock.now();
    const started = await conditionalWrite(
      `start fight window ${cluster}`,
      () =>
        this.client.send(
          new PutItemCommand({
            TableName: this.tableName,
            Item: {
              ...key(`fight#${cluster}`),
              count: num(1),
              detail: str(detail),
              windowEndMs: num(now + FIGHT_WINDOW_MS),
              expiresAt: num(toEpochSeconds(now + FIGHT_WINDOW_MS)),
            },
            ...buildExpression({
              condition:
                'attribute_not_exists(#windowEndMs) OR #windowEndMs <= :now',
              values: { ':now': num(now) },
            }),
          })
        )
    );
    return started.ok;
  }

  async fence(id: string, reason: string, ttlMs?: number): Promise<void> {
    const now = this.clock.now();
    const slash = id.indexOf('/');
    if (slash > 0) {
      // Noted on the cluster, so that clearing the cluster's fence finds it.
      const cluster = id.slice(0, slash);
      await callDynamo(`note fenced ${id}`, () =>
        this.client.send(
          new UpdateItemCommand({
            TableName: this.tableName,
            Key: key(`fenced#${cluster}`),
            ...buildExpression({
              update: 'ADD #keys :key',
              values: { ':key': { SS: [id] } },
            }),
          })
        )
      );
    }
    await callDynamo(`fence ${id}`, () =>
      this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            ...key(`fence#${id}`),
            fencedAtMs: num(now),
            reason: str(reason.slice(0, 1_000)),
            ...(ttlMs === undefined
              ? {}
              : { expiresAt: num(toEpochSeconds(now + ttlMs)) }),
          },
        })
      )
    );
  }

  async clearFence(id: string): Promise<void> {
    const ids = [id];
    if (!id.includes('/')) {
      const { Item: noted } = await callDynamo(`get fenced ${id}`, () =>
        this.client.send(
          new GetItemCommand({
            TableName: this.tableName,
            Key: key(`fenced#${id}`),
            ConsistentRead: true,
          })
        )
      );
      ids.push(...(noted?.keys?.SS ?? []), `${id}#daemon-sets`);
    }
    const pks = ids.flatMap((x) => [`fence#${x}`, `fight#${x}`]);
    if (!id.includes('/')) pks.push(`fenced#${id}`);
    for (const pk of pks) {
      await callDynamo(`clear ${pk}`, () =>
        this.client.send(
          new DeleteItemCommand({ TableName: this.tableName, Key: key(pk) })
        )
      );
    }
  }
}
