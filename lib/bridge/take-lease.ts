/**
 * How a bridge run takes its cluster's lease: at once, or — for a
 * successor launched ahead of a hand-over — as soon as the run it succeeds
 * has checkpointed and released. The successor sleeps until just before the
 * predecessor's planned end and then asks every TAKE_OVER_POLL_MS, so the
 * cluster is unwatched for about one poll; it gives up when someone else
 * took the lease, or when even a crashed predecessor's lease would have run
 * out.
 */
import type {
  BridgeLeaseStore,
  Clock,
  ClusterTurn,
  ResourceVersions,
} from '../ports/index.js';
import { abortableSleep } from './abortable-sleep.js';

/** How often a successor asks for the lease once its predecessor is due. */
export const TAKE_OVER_POLL_MS = 500;
/** A successor starts asking this long before the predecessor's planned end. */
const EARLY_MS = 2_000;

/** What taking a lease needs. */
export interface TakeLeaseDeps {
  cluster: string;
  holder: string;
  leases: BridgeLeaseStore;
  clock: Clock;
}

/**
 * Returns the stored resourceVersions once `holder` holds the lease (noted
 * to run until `runUntilMs`), or undefined when it will not get it.
 */
export const takeLease = async (
  deps: TakeLeaseDeps,
  opts: {
    ttlMs: number;
    runUntilMs: number;
    after?: ClusterTurn['after'];
    signal?: AbortSignal;
  }
): Promise<ResourceVersions | undefined> => {
  const { cluster, holder, leases, clock } = deps;
  for (;;) {
    const versions = await leases.acquire(
      cluster,
      holder,
      opts.ttlMs,
      opts.runUntilMs
    );
    const after = opts.after;
    if (versions !== undefined || after === undefined) return versions;
    const now = clock.now();
    // A crashed predecessor's lease runs out within a TTL of its end.
    const hopeless = now > after.runUntilMs + opts.ttlMs + TAKE_OVER_POLL_MS;
    if (hopeless || now >= opts.runUntilMs || opts.signal?.aborted) {
      return undefined;
    }
    const lease = (await leases.peek([cluster])).get(cluster);
    const takenByAnother =
      lease?.holder !== undefined &&
      lease.holder !== after.holder &&
      lease.leaseUntilMs >= now;
    if (takenByAnother) return undefined;
    const wakeAt = Math.max(
      now + TAKE_OVER_POLL_MS,
      after.runUntilMs - EARLY_MS
    );
    await abortableSleep(wakeAt - now, opts.signal);
  }
};

/**
 * Runs `work` while renewing `holder`'s lease every third of its TTL, so a
 * run stuck on a slow API server (a relist that takes its request timeout)
 * still holds its cluster, and the dispatcher launches no second run of it
 * meanwhile. Renewal is the holder's own acquire, which keeps every stored
 * field (bookmarks, a pending resync).
 */
export const whileHoldingLease = async <T>(
  deps: TakeLeaseDeps,
  opts: { ttlMs: number; runUntilMs: number },
  work: () => Promise<T>
): Promise<T> => {
  const renew = setInterval(() => {
    void deps.leases
      .acquire(deps.cluster, deps.holder, opts.ttlMs, opts.runUntilMs)
      .catch(() => undefined);
  }, opts.ttlMs / 3);
  try {
    return await work();
  } finally {
    clearInterval(renew);
  }
};
