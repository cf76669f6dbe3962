/**
 * OwnershipStore on the state table: `fight#<cluster>` counts foreign-write
 * observations within a window (the item expires with the window, and a
 * reader treats an expired window as empty); `fence#<cluster>` stops the
 * reconciler acting on the cluster and has no TTL: only an operator clears it.
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
  num,
  readNumber,
  readString,
  str,
} from './dynamo-call.js';
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
    return { fencedAtMs, reason: readString(item, 'reason') ?? '' };
  }

  async recordForeignWrites(cluster: string, detail: string): Promise<number> {
    const now = this.clock.now();
    const pk = `fight#${cluster}`;
    const fresh = {
      ':one': num(1),
      ':now': num(now),
      ':detail': str(detail.slice(0, 500)),
      ':expiresAt': num(toEpochSeconds(now + FIGHT_WINDOW_MS)),
    };
    // Count within the current window; an expired window starts again.
    const counted = await conditionalWrite(`count fight ${cluster}`, () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: key(pk),
          ...buildExpression({
            update: 'ADD #count :one SET #detail = :detail',
            condition: '#windowEndMs > :now AND #detail <> :detail',
            values: {
              ':one': fresh[':one'],
              ':now': fresh[':now'],
              ':detail': fresh[':detail'],
            },
          }),
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        })
      )
    );
    if (counted.ok) return readNumber(counted.attributes, 'count') ?? 1;
    const old = counted.old;
    if (
      (readNumber(old, 'windowEndMs') ?? 0) > now &&
      readString(old, 'detail') === fresh[':detail'].S
    ) {
      return readNumber(old, 'count') ?? 1; // the same writes, seen again
    }
    await callDynamo(`start fight window ${cluster}`, () =>
      this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            ...key(pk),
            count: num(1),
            detail: fresh[':detail'],
            windowEndMs: num(now + FIGHT_WINDOW_MS),
            expiresAt: fresh[':expiresAt'],
          },
        })
      )
    );
    return 1;
  }

  async fence(cluster: string, reason: string): Promise<void> {
    await callDynamo(`fence ${cluster}`, () =>
      this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            ...key(`fence#${cluster}`),
            fencedAtMs: num(this.clock.now()),
            reason: str(reason.slice(0, 1_000)),
          },
        })
      )
    );
  }

  async clearFence(cluster: string): Promise<void> {
    for (const pk of [`fence#${cluster}`, `fight#${cluster}`]) {
      await callDynamo(`clear ${pk}`, () =>
        this.client.send(
          new DeleteItemCommand({ TableName: this.tableName, Key: key(pk) })
        )
      );
    }
  }
}
