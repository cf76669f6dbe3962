/**
 * NodeIndexStore on the state table: a cluster's node index (labels and
 * taints per node) as gzip'd JSON split into shards of at most 300 KB
 * (DynamoDB items hold 400 KB), items `nodes#<cluster>#<version>#<i>`, and a
 * head item `nodes#<cluster>` naming the current version and the node
 * resourceVersion it covers. Shards are written before the head, so a
 * reader never sees half an index; superseded shards expire by TTL. A label change on one node rewrites the index: such changes
 * are rare, and a 5,000-node index compresses to a shard or two.
 */
import { randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { LeaseLostError } from '../../errors.js';
import type { NodeIndexStore, StoredNodeIndex } from '../../ports/index.js';
import type { NodeFacts } from '../../reconcile/event-keys/resumed.js';
import { batchGetItems } from './dynamo-call.js';
import { DynamoStateError } from './dynamo-state-error.js';
import { DynamoStore } from './dynamo-store.js';
import {
  KeyPrefix,
  PARTITION_KEY,
  partitionKey,
  TTL_ATTRIBUTE,
  toEpochSeconds,
} from './table-schema.js';

/** Shard size: below DynamoDB's 400 KB item limit with room for attributes. */
const SHARD_BYTES = 300_000;
/** Superseded shards linger this long (a slow reader may still fetch them). */
const OLD_SHARD_TTL_MS = 24 * 60 * 60_000;
const PREFIX = 'nodes#';

/** The node index of each cluster, in DynamoDB. */
export class DynamoNodeIndexStore
  extends DynamoStore
  implements NodeIndexStore
{
  async load(cluster: string): Promise<StoredNodeIndex> {
    try {
      const head = await this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: { S: `${PREFIX}${cluster}` } },
          ConsistentRead: true,
        })
      );
      const version = head.Item?.version?.S;
      const shards = Number(head.Item?.shards?.N ?? 0);
      if (version === undefined || shards === 0) return { nodes: new Map() };
      const resourceVersion = head.Item?.resourceVersion?.S;
      const pks = Array.from(
        { length: shards },
        (_, i) => `${PREFIX}${cluster}#${version}#${i}`
      );
      const items = await batchGetItems(this.client, this.tableName, pks, true);
      const ordered = pks.map((pk) => {
        const part = items.get(pk)?.data?.B;
        if (part === undefined) {
          throw new DynamoStateError(
            `load node index ${cluster}: shard missing`
          );
        }
        return Buffer.from(part);
      });
      const json = gunzipSync(Buffer.concat(ordered)).toString('utf8');
      return {
        nodes: new Map(
          Object.entries(JSON.parse(json) as Record<string, NodeFacts>)
        ),
        ...(resourceVersion === undefined ? {} : { resourceVersion }),
      };
    } catch (e) {
      if (e instanceof DynamoStateError) throw e;
      throw new DynamoStateError(`load node index ${cluster}`, { cause: e });
    }
  }

  async save(
    cluster: string,
    nodes: ReadonlyMap<string, NodeFacts>,
    holder: string,
    resourceVersion: string
  ): Promise<void> {
    const blob = gzipSync(JSON.stringify(Object.fromEntries(nodes)));
    const version = randomUUID();
    const shards = Math.max(1, Math.ceil(blob.length / SHARD_BYTES));
    try {
      for (let i = 0; i < shards; i++) {
        await this.client.send(
          new PutItemCommand({
            TableName: this.tableName,
            Item: {
              [PARTITION_KEY]: { S: `${PREFIX}${cluster}#${version}#${i}` },
              data: {
                B: blob.subarray(i * SHARD_BYTES, (i + 1) * SHARD_BYTES),
              },
            },
          })
        );
      }
      const headKey = { [PARTITION_KEY]: { S: `${PREFIX}${cluster}` } };
      const { Item: old } = await this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: headKey,
          ConsistentRead: true,
        })
      );
      const oldVersion = old?.version?.S;
      try {
        // The head moves only for the live lease holder, and only from the
        // version it read: a deposed bridge cannot overwrite its successor.
        await this.client.send(
          new TransactWriteItemsCommand({
            TransactItems: [
              {
                ConditionCheck: {
                  TableName: this.tableName,
                  Key: {
                    [PARTITION_KEY]: {
                      S: partitionKey(KeyPrefix.lease, cluster),
                    },
                  },
                  ConditionExpression:
                    '#holder = :holder AND #leaseUntilMs >= :now',
                  ExpressionAttributeNames: {
                    '#holder': 'holder',
                    '#leaseUntilMs': 'leaseUntilMs',
                  },
                  ExpressionAttributeValues: {
                    ':holder': { S: holder },
                    ':now': { N: String(this.clock.now()) },
                  },
                },
              },
              {
                Put: {
                  TableName: this.tableName,
                  Item: {
                    ...headKey,
                    version: { S: version },
                    shards: { N: String(shards) },
                    nodes: { N: String(nodes.size) },
                    resourceVersion: { S: resourceVersion },
                  },
                  ...(oldVersion === undefined
                    ? {
                        ConditionExpression: 'attribute_not_exists(#pk)',
                        ExpressionAttributeNames: { '#pk': PARTITION_KEY },
                      }
                    : {
                        ConditionExpression: '#version = :old',
                        ExpressionAttributeNames: { '#version': 'version' },
                        ExpressionAttributeValues: {
                          ':old': { S: oldVersion },
                        },
                      }),
                },
              },
            ],
          })
        );
      } catch (e) {
        // The new version's shards never became current: let them expire.
        await this.#expireShards(cluster, {
          version: { S: version },
          shards: { N: String(shards) },
        });
        // Only a failed condition means another holder; a conflict or a
        // throttle is retried like any state error.
        const failed = (
          e instanceof TransactionCanceledException
            ? (e.CancellationReasons ?? [])
            : []
        ).some((r) => r.Code === 'ConditionalCheckFailed');
        if (failed) throw new LeaseLostError(cluster);
        throw e;
      }
      await this.#expireShards(cluster, old);
    } catch (e) {
      if (e instanceof LeaseLostError) throw e;
      throw new DynamoStateError(`save node index ${cluster}`, { cause: e });
    }
  }

  /** Gives the superseded version's shards a TTL. */
  async #expireShards(
    cluster: string,
    head: Record<string, { S?: string; N?: string }> | undefined
  ): Promise<void> {
    const version = head?.version?.S;
    const shards = Number(head?.shards?.N ?? 0);
    const expiresAt = toEpochSeconds(this.clock.now() + OLD_SHARD_TTL_MS);
    for (let i = 0; version !== undefined && i < shards; i++) {
      const pk = `${PREFIX}${cluster}#${version}#${i}`;
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: { S: pk } },
          UpdateExpression: 'SET #ttl = :t',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':t': { N: String(expiresAt) } },
        })
      );
    }
  }
}
