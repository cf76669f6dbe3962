/**
 * ClusterSyncSlots on the state table: `slots#<cluster>` holds a string set
 * of `holder@untilMs` entries. A slot is taken by adding an entry while the
 * set is smaller than the share; when it is full, entries whose time has
 * passed (a crashed reconciler's) are deleted and the take is tried once
 * more. Releasing deletes the holder's entry. A take retried by the SDK
 * after it committed finds its own entry and succeeds (adding it is a
 * no-op), instead of finding the set full and leaking the entry.
 */
import {
  ConditionalCheckFailedException,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { ClusterSyncSlots } from '../../ports/index.js';
import { callDynamo, num, str } from './dynamo-call.js';
import { DynamoStore } from './dynamo-store.js';
import { PARTITION_KEY, toEpochSeconds } from './table-schema.js';

/** The item outlives its last slot by this much. */
const SLOTS_TTL_MS = 60 * 60_000;

/** Cluster sync slots in DynamoDB. */
export class DynamoClusterSyncSlots
  extends DynamoStore
  implements ClusterSyncSlots
{
  /** This process's entries by holder, to delete them on release. */
  readonly #entries = new Map<string, string>();

  async acquire(
    cluster: string,
    holder: string,
    max: number,
    untilMs: number
  ): Promise<boolean> {
    const entry = `${holder}@${untilMs}`;
    const first = await this.#take(cluster, entry, max);
    if (first.ok) {
      this.#entries.set(holder, entry);
      return true;
    }
    const now = this.clock.now();
    const expired = first.held.filter(
      (e) => Number(e.slice(e.lastIndexOf('@') + 1)) < now
    );
    if (expired.length === 0) return false;
    await this.#remove(cluster, expired);
    const second = await this.#take(cluster, entry, max);
    if (second.ok) this.#entries.set(holder, entry);
    return second.ok;
  }

  async release(cluster: string, holder: string): Promise<void> {
    const entry = this.#entries.get(holder);
    if (entry === undefined) return;
    this.#entries.delete(holder);
    await this.#remove(cluster, [entry]);
  }

  async #take(
    cluster: string,
    entry: string,
    max: number
  ): Promise<{ ok: true } | { ok: false; held: string[] }> {
    return callDynamo(`take sync slot ${cluster}`, async () => {
      try {
        await this.client.send(
          new UpdateItemCommand({
            TableName: this.tableName,
            Key: { [PARTITION_KEY]: str(`slots#${cluster}`) },
            UpdateExpression: 'ADD #held :entry SET #expiresAt = :expiresAt',
            // Or the entry is in already: an SDK retry of this take after
            // it committed (the entry, holder@untilMs, is its id).
            ConditionExpression:
              'attribute_not_exists(#held) OR size(#held) < :max OR contains(#held, :id)',
            ExpressionAttributeNames: {
              '#held': 'held',
              '#expiresAt': 'expiresAt',
            },
            ExpressionAttributeValues: {
              ':entry': { SS: [entry] },
              ':id': str(entry),
              ':max': num(max),
              ':expiresAt': num(
                toEpochSeconds(this.clock.now() + SLOTS_TTL_MS)
              ),
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          })
        );
        return { ok: true as const };
      } catch (e) {
        if (!(e instanceof ConditionalCheckFailedException)) throw e;
        return { ok: false as const, held: e.Item?.held?.SS ?? [] };
      }
    });
  }

  async #remove(cluster: string, entries: string[]): Promise<void> {
    await callDynamo(`free sync slots ${cluster}`, () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(`slots#${cluster}`) },
          UpdateExpression: 'DELETE #held :entries',
          ExpressionAttributeNames: { '#held': 'held' },
          ExpressionAttributeValues: { ':entries': { SS: entries } },
        })
      )
    );
  }
}
