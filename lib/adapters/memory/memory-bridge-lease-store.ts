/**
 * In-process BridgeLeaseStore for local runs and scenario tests, with exactly
 * the semantics of DynamoBridgeLeaseStore: one holder per cluster until its
 * lease runs out, checkpoints fenced by the lease, bookmarks kept across
 * holders until they are too old to be worth resuming from.
 */
import { LeaseLostError } from '../../errors.js';
import type {
  BridgeLeaseStore,
  Clock,
  ResourceVersions,
} from '../../ports/index.js';

/**
 * How long bookmarks outlive the lease that wrote them (the item's TTL).
 * Older resourceVersions are long compacted away by the API server (5 min by
 * default) and would only earn a 410 Gone, so a new bridge starts afresh.
 */
export const BOOKMARK_RETENTION_MS = 24 * 60 * 60_000;

interface Lease {
  resyncRequested?: boolean;
  holder: string;
  leaseUntilMs: number;
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
    ttlMs: number
  ): Promise<ResourceVersions | undefined> {
    const now = this.#clock.now();
    let lease = this.#leases.get(cluster);
    if (lease !== undefined && lease.expiresAtMs < now) lease = undefined;
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
      ...(lease?.resyncRequested ? { resyncRequested: true } : {}),
    });
    return { ...resourceVersions };
  }

  /** Forgets the cluster's lease and bookmarks. */
  async forget(cluster: string): Promise<void> {
    this.#leases.delete(cluster);
  }

  /** Asks the cluster's bridge to queue every DaemonSet again. */
  async requestResync(cluster: string): Promise<void> {
    const now = this.#clock.now();
    const lease = this.#leases.get(cluster) ?? {
      holder: '',
      leaseUntilMs: 0,
      resourceVersions: {},
      expiresAtMs: now + BOOKMARK_RETENTION_MS,
    };
    this.#leases.set(cluster, { ...lease, resyncRequested: true });
  }

  /** Stores bookmarks and extends the lease; throws LeaseLostError if lost. */
  async checkpoint(
    cluster: string,
    holder: string,
    resourceVersions: ResourceVersions,
    ttlMs: number
  ): Promise<{ resyncRequested: boolean }> {
    const now = this.#clock.now();
    const lease = this.#leases.get(cluster);
    if (lease?.holder !== holder || lease.leaseUntilMs < now) {
      throw new LeaseLostError(cluster);
    }
    this.#leases.set(cluster, {
      holder,
      leaseUntilMs: now + ttlMs,
      resourceVersions: { ...resourceVersions },
      expiresAtMs: now + ttlMs + BOOKMARK_RETENTION_MS,
    });
    return { resyncRequested: lease.resyncRequested === true };
  }

  /** Ends `holder`'s lease now, keeping the bookmarks. */
  async release(cluster: string, holder: string): Promise<void> {
    const lease = this.#leases.get(cluster);
    if (lease?.holder === holder) lease.leaseUntilMs = 0;
  }
}
