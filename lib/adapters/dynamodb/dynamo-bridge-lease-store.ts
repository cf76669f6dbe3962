import { DeleteItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { BridgeLeaseLostError } from '../../errors.js';
import type {
  BridgeLeaseStore,
  ClusterSize,
  LeaseView,
  ResourceVersions,
} from '../../ports/index.js';
import { BOOKMARK_RETENTION_MS } from '../memory/memory-bridge-lease-store.js';
import {
  batchGetItems,
  buildExpression,
  type ConditionalOutcome,
  callDynamo,
  conditionalWrite,
  type Expression,
  IS_EXPIRED,
  IS_LIVE,
  isExpiredItem,
  num,
  readNumber,
  str,
  updateExistingItem,
  updateLiveItem,
} from './dynamo-call.js';
import { DynamoStore } from './dynamo-store.js';
import {
  removeAllBut,
  toLeaseView,
  toMap,
  toResourceVersions,
} from './lease-item.js';
import {
  KeyPrefix,
  PARTITION_KEY,
  partitionKey,
  TTL_ATTRIBUTE,
  toEpochSeconds,
} from './table-schema.js';

/** Nobody holds the lease, it ran out, or the caller holds it already. */
const IS_FREE_OR_MINE =
  'attribute_not_exists(#holder) OR #leaseUntilMs < :now OR #holder = :holder';

/** The caller holds a lease that has not run out. */
const IS_MINE_AND_LIVE = '#holder = :holder AND #leaseUntilMs >= :now';

/** The caller is the holder (running out does not matter for a release). */
const IS_MINE = '#holder = :holder';

/** No launched run is on its way, or it is late, or it is the caller's. */
const IS_UNCLAIMED =
  '(attribute_not_exists(#claimId) OR #claimedAtMs < :stale OR #claimId = :claimId)';

/** The lease is free or ran out (a take-over from nobody). */
const IS_FREE = '(attribute_not_exists(#holder) OR #leaseUntilMs < :now)';

/** What a claim writes (the rest of an expired item is removed). */
const CLAIM_ATTRIBUTES = ['claimId', 'claimedAtMs', TTL_ATTRIBUTE];

/** Bridge leases and bookmarks kept in DynamoDB, one item per cluster. */
export class DynamoBridgeLeaseStore
  extends DynamoStore
  implements BridgeLeaseStore
{
  async acquire(
    cluster: string,
    holder: string,
    ttlMs: number,
    runUntilMs?: number
  ): Promise<ResourceVersions | undefined> {
    const now = this.clock.now();
    const runUntil =
      runUntilMs === undefined
        ? ' REMOVE #runUntilMs, #claimId, #claimedAtMs'
        : ', #runUntilMs = :runUntil REMOVE #claimId, #claimedAtMs';
    const outcome = await updateLiveItem({
      client: this.client,
      tableName: this.tableName,
      pk: this.#pk(cluster),
      nowMs: now,
      operation: 'acquire lease',
      update: `SET #holder = :holder, #leaseUntilMs = :until, #expiresAt = :expiresAt, #resourceVersions = if_not_exists(#resourceVersions, :noVersions)${runUntil}`,
      condition: IS_FREE_OR_MINE,
      values: {
        ':holder': str(holder),
        ':now': num(now),
        ':until': num(now + ttlMs),
        ':expiresAt': num(toEpochSeconds(now + ttlMs + BOOKMARK_RETENTION_MS)),
        ':noVersions': { M: {} },
        ...(runUntilMs === undefined ? {} : { ':runUntil': num(runUntilMs) }),
      },
      returnValues: 'ALL_NEW',
    });
    return outcome.ok ? toResourceVersions(outcome.attributes) : undefined;
  }

  async peek(clusters: readonly string[]): Promise<Map<string, LeaseView>> {
    const now = this.clock.now();
    const items = await callDynamo('peek leases', () =>
      batchGetItems(
        this.client,
        this.tableName,
        clusters.map((c) => this.#pk(c)),
        true
      )
    );
    const views = new Map<string, LeaseView>();
    for (const cluster of clusters) {
      const item = items.get(this.#pk(cluster));
      if (item === undefined || isExpiredItem(item, now)) continue;
      views.set(cluster, toLeaseView(item));
    }
    return views;
  }

  async recordFailure(cluster: string, holder: string): Promise<void> {
    const now = this.clock.now();
    await updateLiveItem({
      client: this.client,
      tableName: this.tableName,
      pk: this.#pk(cluster),
      nowMs: now,
      operation: 'record bridge failure',
      update:
        'SET #failures = if_not_exists(#failures, :zero) + :one, #lastFailureAtMs = :now, #expiresAt = if_not_exists(#expiresAt, :expiresAt)',
      condition: IS_FREE_OR_MINE,
      values: {
        ':zero': num(0),
        ':one': num(1),
        ':now': num(now),
        ':holder': str(holder),
        ':expiresAt': num(toEpochSeconds(now + BOOKMARK_RETENTION_MS)),
      },
    });
  }

  async claimTakeOver(
    cluster: string,
    holder: string | undefined,
    claimId: string,
    staleMs: number
  ): Promise<boolean> {
    const now = this.clock.now();
    const values = {
      ':claimId': str(claimId),
      ':now': num(now),
      ':nowS': num(toEpochSeconds(now)),
      ':stale': num(now - staleMs),
      ':expiresAt': num(toEpochSeconds(now + BOOKMARK_RETENTION_MS)),
      ...(holder === undefined ? {} : { ':holder': str(holder) }),
    };
    const claim = 'SET #claimId = :claimId, #claimedAtMs = :now';
    const first = await this.#claim(cluster, {
      update: `${claim}, #expiresAt = if_not_exists(#expiresAt, :expiresAt)`,
      condition: `${IS_LIVE} AND ${holder === undefined ? IS_FREE : IS_MINE} AND ${IS_UNCLAIMED}`,
      values,
    });
    if (first.ok || holder !== undefined || !isExpiredItem(first.old, now)) {
      return first.ok;
    }
    // An expired item is absent (TTL lags by days). The dispatcher may not
    // delete it, so the claim starts it afresh in place, keeping nothing of
    // the old lease; `#claimId = :claimId` grants an SDK retry of this write.
    const fresh = await this.#claim(cluster, {
      update: `${claim}, #expiresAt = :expiresAt${removeAllBut(first.old ?? {}, CLAIM_ATTRIBUTES)}`,
      condition: `${IS_EXPIRED} OR #claimId = :claimId`,
      values,
    });
    return fresh.ok;
  }

  #claim(cluster: string, e: Expression): Promise<ConditionalOutcome> {
    const pk = this.#pk(cluster);
    return conditionalWrite(`claim take-over ${pk}`, () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(pk) },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          ...buildExpression(e),
        })
      )
    );
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
    const now = this.clock.now();
    // An expired item is started afresh, so the next acquire keeps the request.
    await updateLiveItem({
      client: this.client,
      tableName: this.tableName,
      pk: this.#pk(cluster),
      nowMs: now,
      operation: 'request resync',
      update:
        'SET #resyncRequestedAtMs = :now, #expiresAt = if_not_exists(#expiresAt, :expiresAt)',
      values: {
        ':now': num(now),
        ':expiresAt': num(toEpochSeconds(now + BOOKMARK_RETENTION_MS)),
      },
    });
  }

  async completeResync(cluster: string, requestedAtMs: number): Promise<void> {
    await updateExistingItem({
      client: this.client,
      tableName: this.tableName,
      pk: this.#pk(cluster),
      operation: 'complete resync',
      update: 'REMOVE #resyncRequestedAtMs',
      condition: '#resyncRequestedAtMs = :at',
      values: { ':at': num(requestedAtMs) },
    });
  }

  async checkpoint(
    cluster: string,
    holder: string,
    resourceVersions: ResourceVersions,
    ttlMs: number,
    size?: ClusterSize
  ): Promise<{ resyncRequestedAtMs?: number }> {
    const now = this.clock.now();
    const pk = this.#pk(cluster);
    const outcome = await conditionalWrite(`checkpoint ${pk}`, () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(pk) },
          // The whole item, so a retried write still reads the request.
          ReturnValues: 'ALL_NEW',
          ...buildExpression({
            update: `SET #resourceVersions = :versions, #leaseUntilMs = :until, #checkpointedAtMs = :now, #expiresAt = :expiresAt${size === undefined ? '' : ', #nodes = :nodes'} REMOVE #failures, #lastFailureAtMs`,
            condition: IS_MINE_AND_LIVE,
            values: {
              ...(size === undefined ? {} : { ':nodes': num(size.nodes) }),
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
    if (!outcome.ok) throw new BridgeLeaseLostError(cluster);
    const requestedAtMs = readNumber(outcome.attributes, 'resyncRequestedAtMs');
    return requestedAtMs === undefined
      ? {}
      : { resyncRequestedAtMs: requestedAtMs };
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
