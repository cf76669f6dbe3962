/**
 * BridgeLeaseStore on the state table (`lease#<cluster>` items): one bridge
 * per cluster (upstream: leader election with a Lease object) and its
 * bookmarks, fenced by the lease.
 *
 * Item: holder (S), leaseUntilMs (N), resourceVersions (M of S), expiresAt,
 * and resyncRequested (BOOL) between an unfence and the next checkpoint.
 * Invariants: of bridges acquiring at once exactly one holds the lease; a
 * lease passes to another holder only once `leaseUntilMs` has passed; a
 * checkpoint by anyone but the live holder changes nothing and throws
 * LeaseLostError.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { LeaseLostError } from '../../errors.js';
import type { BridgeLeaseStore, ResourceVersions } from '../../ports/index.js';
import { BOOKMARK_RETENTION_MS } from '../memory/memory-bridge-lease-store.js';
import {
  buildExpression,
  callDynamo,
  conditionalWrite,
  type Item,
  num,
  str,
  updateLiveItem,
} from './dynamo-call.js';
import { DynamoStore } from './dynamo-store.js';
import {
  KeyPrefix,
  PARTITION_KEY,
  partitionKey,
  toEpochSeconds,
} from './table-schema.js';

/** Nobody holds the lease, it ran out, or the caller holds it already. */
const IS_FREE_OR_MINE =
  'attribute_not_exists(#holder) OR #leaseUntilMs < :now OR #holder = :holder';

/** The caller holds a lease that has not run out. */
const IS_MINE_AND_LIVE = '#holder = :holder AND #leaseUntilMs >= :now';

/** The caller is the holder (running out does not matter for a release). */
const IS_MINE = '#holder = :holder';

/** Bridge leases and bookmarks kept in DynamoDB, one item per cluster. */
export class DynamoBridgeLeaseStore
  extends DynamoStore
  implements BridgeLeaseStore
{
  async acquire(
    cluster: string,
    holder: string,
    ttlMs: number
  ): Promise<ResourceVersions | undefined> {
    const now = this.clock.now();
    const outcome = await updateLiveItem({
      client: this.client,
      tableName: this.tableName,
      pk: this.#pk(cluster),
      nowMs: now,
      operation: 'acquire lease',
      update:
        'SET #holder = :holder, #leaseUntilMs = :until, #expiresAt = :expiresAt, #resourceVersions = if_not_exists(#resourceVersions, :noVersions)',
      condition: IS_FREE_OR_MINE,
      values: {
        ':holder': str(holder),
        ':now': num(now),
        ':until': num(now + ttlMs),
        ':expiresAt': num(toEpochSeconds(now + ttlMs + BOOKMARK_RETENTION_MS)),
        ':noVersions': { M: {} },
      },
      returnValues: 'ALL_NEW',
    });
    return outcome.ok ? toResourceVersions(outcome.attributes) : undefined;
  }

  async forget(cluster: string): Promise<void> {
    const pk = this.#pk(cluster);
    await callDynamo(`forget lease ${pk}`, () =>
      this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(pk) },
        })
      )
    );
  }

  async requestResync(cluster: string): Promise<void> {
    const pk = this.#pk(cluster);
    await callDynamo(`request resync ${pk}`, () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(pk) },
          ...buildExpression({
            update:
              'SET #resyncRequested = :true, #expiresAt = if_not_exists(#expiresAt, :expiresAt)',
            values: {
              ':true': { BOOL: true },
              ':expiresAt': num(
                toEpochSeconds(this.clock.now() + BOOKMARK_RETENTION_MS)
              ),
            },
          }),
        })
      )
    );
  }

  async checkpoint(
    cluster: string,
    holder: string,
    resourceVersions: ResourceVersions,
    ttlMs: number
  ): Promise<{ resyncRequested: boolean }> {
    const now = this.clock.now();
    const pk = this.#pk(cluster);
    const outcome = await conditionalWrite(`checkpoint ${pk}`, () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(pk) },
          ReturnValues: 'UPDATED_OLD',
          ...buildExpression({
            update:
              'SET #resourceVersions = :versions, #leaseUntilMs = :until, #expiresAt = :expiresAt REMOVE #resyncRequested',
            condition: IS_MINE_AND_LIVE,
            values: {
              ':versions': toMap(resourceVersions),
              ':holder': str(holder),
              ':now': num(now),
              ':until': num(now + ttlMs),
              ':expiresAt': num(
                toEpochSeconds(now + ttlMs + BOOKMARK_RETENTION_MS)
              ),
            },
          }),
        })
      )
    );
    if (!outcome.ok) throw new LeaseLostError(cluster);
    return {
      resyncRequested: outcome.attributes?.resyncRequested?.BOOL === true,
    };
  }

  async release(cluster: string, holder: string): Promise<void> {
    const pk = this.#pk(cluster);
    // A failed condition means someone else holds it now: nothing to end.
    await conditionalWrite(`release ${pk}`, () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(pk) },
          ...buildExpression({
            update: 'SET #leaseUntilMs = :zero',
            condition: IS_MINE,
            values: { ':holder': str(holder), ':zero': num(0) },
          }),
        })
      )
    );
  }

  #pk(cluster: string): string {
    return partitionKey(KeyPrefix.lease, cluster);
  }
}

/** Returns the resourceVersions a lease item holds. */
const toResourceVersions = (item: Item | undefined): ResourceVersions => {
  const versions: Record<string, string> = {};
  for (const [resource, value] of Object.entries(
    item?.resourceVersions?.M ?? {}
  )) {
    if (value.S !== undefined) versions[resource] = value.S;
  }
  return versions;
};

/** Returns resourceVersions as a DynamoDB map of strings. */
const toMap = (versions: ResourceVersions): AttributeValue => ({
  M: Object.fromEntries(
    Object.entries(versions).map(([resource, rv]) => [resource, str(rv)])
  ),
});
