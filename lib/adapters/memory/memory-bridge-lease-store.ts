/**
 * In-process BridgeLeaseStore for local runs and scenario tests, with exactly
 * the semantics of DynamoBridgeLeaseStore: one holder per cluster until its
 * lease runs out, checkpoints fenced by the lease, bookmarks kept across
 * holders until they are too old to be worth resuming from.
 */
import { BridgeLeaseLostError } from '../../errors.js';
import type {
  BridgeLeaseStore,
  Clock,
  ClusterSize,
  LeaseView,
  ResourceVersions,
} from '../../ports/index.js';

/**
 * How long bookmarks outlive the lease that wrote them (the item's TTL).
 * Older resourceVersions are long compacted away by the API server (5 min by
 * default) and would only earn a 410 Gone, so a new bridge starts afresh.
 */
export const BOOKMARK_RETENTION_MS = 24 * 60 * 60_000;

interface Lease {
  resyncRequestedAtMs?: number;
  holder: string;
  leaseUntilMs: number;
  runUntilMs?: number;
  claim?: { id: string; atMs: number };
  size?: ClusterSize;
  checkpointedAtMs?: number;
  failures?: { count: number; lastAtMs: number };
  resourceVersions: ResourceVersions;
  expiresAtMs: number;
}

/** Bridge leases and bookmarks kept in a Map, keyed by cluster. */
export class MemoryBridgeLeaseStore implements BridgeLeaseStore {
  readonly #leases = new Map<string, Lease>();
  readonly #clock: Clock;

  constructor({ clock }: { clock: Clock }) {
    this.#clock = clock;
  }

  /**
   * Takes or renews the lease; returns the stored resourceVersions, or
   * undefined while another holder's lease runs.
   */
  async acquire(
    cluster: string,
    holder: string,
    ttlMs: number,
    runUntilMs?: number
  ): Promise<ResourceVersions | undefined> {
    const now = this.#clock.now();
    const lease = this.#live(cluster, now);
    if (
      lease !== undefined &&
      lease.holder !== holder &&
      lease.leaseUntilMs >= now
    ) {
      return undefined;
    }
    const resourceVersions = lease?.resourceVersions ?? {};
    this.#leases.set(cluster, {
      holder,
      leaseUntilMs: now + ttlMs,
      resourceVersions,
      expiresAtMs: now + ttlMs + BOOKMARK_RETENTION_MS,
      ...(runUntilMs === undefined ? {} : { runUntilMs }),
      ...(lease?.size ? { size: lease.size } : {}),
      ...(lease?.checkpointedAtMs === undefined
        ? {}
        : { checkpointedAtMs: lease.checkpointedAtMs }),
      ...(lease?.failures ? { failures: lease.failures } : {}),
      ...(lease?.resyncRequestedAtMs === undefined
        ? {}
        : { resyncRequestedAtMs: lease.resyncRequestedAtMs }),
    });
    return { ...resourceVersions };
  }

  /** Returns the leases of `clusters` as they stand. */
  async peek(clusters: readonly string[]): Promise<Map<string, LeaseView>> {
    const now = this.#clock.now();
    const views = new Map<string, LeaseView>();
    for (const cluster of clusters) {
      const lease = this.#live(cluster, now);
      if (lease === undefined) continue;
      views.set(cluster, {
        ...(lease.holder ? { holder: lease.holder } : {}),
        leaseUntilMs: lease.leaseUntilMs,
        ...(lease.runUntilMs === undefined
          ? {}
          : { runUntilMs: lease.runUntilMs }),
        ...(lease.claim ? { claimedAtMs: lease.claim.atMs } : {}),
        ...(lease.size ? { size: { ...lease.size } } : {}),
        ...(lease.checkpointedAtMs === undefined
          ? {}
          : { checkpointedAtMs: lease.checkpointedAtMs }),
        ...(lease.failures ? { failures: { ...lease.failures } } : {}),
      });
    }
    return views;
  }

  /** Notes a failed run of `holder`; nothing while another holder's is live. */
  async recordFailure(cluster: string, holder: string): Promise<void> {
    const now = this.#clock.now();
    const lease = this.#liveOrEmpty(cluster, now);
    if (lease.holder !== holder && lease.leaseUntilMs >= now) return;
    const count = (lease.failures?.count ?? 0) + 1;
    this.#leases.set(cluster, {
      ...lease,
      failures: { count, lastAtMs: now },
    });
  }

  /** Claims the launch of the run that takes the cluster over. */
  async claimTakeOver(
    cluster: string,
    holder: string | undefined,
    claimId: string,
    staleMs: number
  ): Promise<boolean> {
    const now = this.#clock.now();
    const lease = this.#liveOrEmpty(cluster, now);
    const from =
      holder === undefined
        ? lease.holder === '' || lease.leaseUntilMs < now
        : lease.holder === holder;
    const unclaimed =
      lease.claim === undefined ||
      lease.claim.atMs < now - staleMs ||
      lease.claim.id === claimId;
    if (!from || !unclaimed) return false;
    this.#leases.set(cluster, { ...lease, claim: { id: claimId, atMs: now } });
    return true;
  }

  /** Returns the live lease, or an empty one nobody holds. */
  #liveOrEmpty(cluster: string, now: number): Lease {
    return (
      this.#live(cluster, now) ?? {
        holder: '',
        leaseUntilMs: 0,
        resourceVersions: {},
        expiresAtMs: now + BOOKMARK_RETENTION_MS,
      }
    );
  }

  #live(cluster: string, now: number): Lease | undefined {
    const lease = this.#leases.get(cluster);
    return lease !== undefined && lease.expiresAtMs >= now ? lease : undefined;
  }

  /** Forgets the cluster's lease and bookmarks. */
  async forget(cluster: string): Promise<void> {
    this.#leases.delete(cluster);
  }

  /** Asks the cluster's bridge to queue every DaemonSet again. */
  async requestResync(cluster: string): Promise<void> {
    const now = this.#clock.now();
    const lease = this.#liveOrEmpty(cluster, now);
    this.#leases.set(cluster, { ...lease, resyncRequestedAtMs: now });
  }

  /** Removes the resync request made at `requestedAtMs`, not a newer one. */
  async completeResync(cluster: string, requestedAtMs: number): Promise<void> {
    const lease = this.#leases.get(cluster);
    if (lease?.resyncRequestedAtMs === requestedAtMs) {
      delete lease.resyncRequestedAtMs;
    }
  }

  /** Stores bookmarks and extends the lease; throws BridgeLeaseLostError if lost. */
  async checkpoint(
    cluster: string,
    holder: string,
    resourceVersions: ResourceVersions,
    ttlMs: number,
    size?: ClusterSize
  ): Promise<{ resyncRequestedAtMs?: number }> {
    const now = this.#clock.now();
    const lease = this.#leases.get(cluster);
    if (lease?.holder !== holder || lease.leaseUntilMs < now) {
      throw new BridgeLeaseLostError(cluster);
    }
    const { failures: _cleared, ...kept } = lease;
    this.#leases.set(cluster, {
      ...kept,
      leaseUntilMs: now + ttlMs,
      checkpointedAtMs: now,
      resourceVersions: { ...resourceVersions },
      expiresAtMs: now + ttlMs + BOOKMARK_RETENTION_MS,
      ...(size ? { size: { ...size } } : {}),
    });
    const { resyncRequestedAtMs } = lease;
    return resyncRequestedAtMs === undefined ? {} : { resyncRequestedAtMs };
  }

  /** Ends `holder`'s lease now, keeping the bookmarks. */
  async release(cluster: string, holder: string): Promise<void> {
    const lease = this.#leases.get(cluster);
    if (lease?.holder === holder) lease.leaseUntilMs = 0;
  }
}
