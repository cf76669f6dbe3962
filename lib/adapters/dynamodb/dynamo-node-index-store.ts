/**
 * NodeIndexStore on the state table: a cluster's node index (labels and
 * taints per node) as gzip'd JSON split into shards of at most 300 KB
 * (DynamoDB items hold 400 KB), items `nodes#<cluster>#<version>#<i>`, and a
 * head item `nodes#<cluster>` naming the current version and the node
 * resourceVersion it covers. Shards are written before the head, so a
 * reader never sees half an index, and with a short TTL: the head's
 * transaction takes it off the shards it makes current and gives one to
 * those it supersedes, so no shard outlives its use (a crash or a refused
 * head leaves only shards that expire). A label change on one node rewrites the index: such changes
 * are rare, and a 5,000-node index compresses to a shard or two.
 */
import { randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  type TransactWriteItem,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { BridgeLeaseLostError } from '../../errors.js';
import type { NodeIndexStore, StoredNodeIndex } from '../../ports/index.js';
import type { NodeFacts } from '../../reconcile/event-keys/resumed.js';
import { batchGetItems, callDynamo } from './dynamo-call.js';
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
/** A shard no head names yet expires after this (a save takes seconds). */
const NEW_SHARD_TTL_MS = 60 * 60_000;
/** Superseded shards linger this long (a slow reader may still fetch them). */
const OLD_SHARD_TTL_MS = 24 * 60 * 60_000;
/**
 * The largest index a load inflates (13 KB for each of 5,000 nodes, many
 * times what a node's labels and taints take), so a crafted head and
 * shards (a gzip bomb) cannot exhaust the bridge's memory.
 */
export const MAX_INDEX_BYTES = 64 * 1024 * 1024;
/** DynamoDB's limit of items in one TransactWriteItems. */
const MAX_TRANSACTION_ITEMS = 100;
const PREFIX = 'nodes#';

type Head = Record<string, { S?: string; N?: string }> | undefined;

/** The keys of the shards a head names. */
const shardKeys = (cluster: string, head: Head): string[] => {
  const version = head?.version?.S;
  const shards = Number(head?.shards?.N ?? 0);
  if (version === undefined) return [];
  return Array.from(
    { length: shards },
    (_, i) => `${PREFIX}${cluster}#${version}#${i}`
  );
};

/** The node index of each cluster, in DynamoDB. */
export class DynamoNodeIndexStore
  extends DynamoStore
  implements NodeIndexStore
{
  async load(cluster: string): Promise<StoredNodeIndex> {
    try {
      const head = await this.#readHead(cluster);
      const pks = shardKeys(cluster, head);
      if (pks.length === 0) return { nodes: new Map() };
      const resourceVersion = head?.resourceVersion?.S;
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
      const json = gunzipSync(Buffer.concat(ordered), {
        maxOutputLength: MAX_INDEX_BYTES,
      }).toString('utf8');
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
    const now = this.clock.now();
    const head = {
      version: { S: randomUUID() },
      shards: {
        N: String(Math.max(1, Math.ceil(blob.length / SHARD_BYTES))),
      },
    };
    try {
      const pks = shardKeys(cluster, head);
      for (const [i, pk] of pks.entries()) {
        await this.client.send(
          new PutItemCommand({
            TableName: this.tableName,
            Item: {
              [PARTITION_KEY]: { S: pk },
              data: {
                B: blob.subarray(i * SHARD_BYTES, (i + 1) * SHARD_BYTES),
              },
              [TTL_ATTRIBUTE]: {
                N: String(toEpochSeconds(now + NEW_SHARD_TTL_MS)),
              },
            },
          })
        );
      }
      const old = await this.#readHead(cluster);
      const oldVersion = old?.version?.S;
      // The new shards keep no TTL and the old ones get one as the head
      // moves; what a transaction cannot hold (dozens of shards) follows it.
      const expiresAt = String(toEpochSeconds(now + OLD_SHARD_TTL_MS));
      const ttls = [
        ...pks.map((pk) => this.#ttlUpdate(pk)),
        ...shardKeys(cluster, old).map((pk) => this.#ttlUpdate(pk, expiresAt)),
      ];
      const inTransaction = MAX_TRANSACTION_ITEMS - 2;
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
                    ':now': { N: String(now) },
                  },
                },
              },
              {
                Put: {
                  TableName: this.tableName,
                  Item: {
                    [PARTITION_KEY]: { S: `${PREFIX}${cluster}` },
                    ...head,
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
              ...ttls.slice(0, inTransaction),
            ],
          })
        );
      } catch (e) {
        // Only a failed condition means another holder; a conflict or a
        // throttle is retried like any state error. The new shards expire.
        const failed = (
          e instanceof TransactionCanceledException
            ? (e.CancellationReasons ?? [])
            : []
        ).some((r) => r.Code === 'ConditionalCheckFailed');
        if (failed) throw new BridgeLeaseLostError(cluster);
        throw e;
      }
      for (const { Update: update } of ttls.slice(inTransaction)) {
        await this.client.send(new UpdateItemCommand({ ...update }));
      }
    } catch (e) {
      if (e instanceof BridgeLeaseLostError) throw e;
      throw new DynamoStateError(`save node index ${cluster}`, { cause: e });
    }
  }

  /** Deletes the head, then the shards it names. */
  async forget(cluster: string): Promise<void> {
    const operation = `forget node index ${cluster}`;
    const head = await callDynamo(operation, () => this.#readHead(cluster));
    for (const pk of [`${PREFIX}${cluster}`, ...shardKeys(cluster, head)]) {
      await callDynamo(operation, () =>
        this.client.send(
          new DeleteItemCommand({
            TableName: this.tableName,
            Key: { [PARTITION_KEY]: { S: pk } },
          })
        )
      );
    }
  }

  async #readHead(cluster: string): Promise<Head> {
    const { Item: head } = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: { [PARTITION_KEY]: { S: `${PREFIX}${cluster}` } },
        ConsistentRead: true,
      })
    );
    return head;
  }

  /** A shard's TTL set to `expiresAt` (epoch seconds), or removed. */
  #ttlUpdate(
    pk: string,
    expiresAt?: string
  ): TransactWriteItem & { Update: object } {
    return {
      Update: {
        TableName: this.tableName,
        Key: { [PARTITION_KEY]: { S: pk } },
        UpdateExpression:
          expiresAt === undefined ? 'REMOVE #ttl' : 'SET #ttl = :t',
        ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
        ...(expiresAt === undefined
          ? {}
          : { ExpressionAttributeValues: { ':t': { N: expiresAt } } }),
      },
    };
  }
}
