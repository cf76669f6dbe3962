/**
 * The watch-bridge of one cluster, for one invocation: take the cluster's
 * lease, resume the DaemonSet, pod, node and ControllerRevision watches from
 * the stored resourceVersions, turn every event into DaemonSet keys with
 * upstream's handlers (lowering expectations on observed pod creates and
 * deletes), checkpoint, and hand over. It keeps no pod, node or revision
 * cache: only the DaemonSet list (listed each run) and the node index (labels
 * and taints per node). `watch` runs until its deadline; `economy` until quiet.
 * This file holds the lease around the run; bridge-run.ts runs the watches.
 */
import { BridgeLeaseLostError } from '../errors.js';
import {
  BridgeRun,
  type ClusterBridgeDeps,
  type ClusterBridgeOptions,
} from './bridge-run.js';
import { takeLease, whileHoldingLease } from './take-lease.js';

/** A dead bridge's cluster is taken over within this time. */
export const LEASE_TTL_MS = 60_000;

/** What a run did. */
export interface ClusterBridgeReport {
  cluster: string;
  outcome: 'done' | 'lease-held' | 'lease-lost';
  events: number;
  /** Events skipped as unreadable (absent: none). */
  skippedEvents?: number;
}

/** Runs the bridge of one cluster until its deadline (or quiet, in economy). */
export const runClusterBridge = async (
  deps: ClusterBridgeDeps,
  opts: ClusterBridgeOptions
): Promise<ClusterBridgeReport> => {
  const { cluster, holder, leases } = deps;
  const ttl = opts.leaseTtlMs ?? LEASE_TTL_MS;
  const stored = await takeLease(deps, {
    ttlMs: ttl,
    runUntilMs: opts.deadlineMs,
    ...(opts.after ? { after: opts.after } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (stored === undefined)
    return { cluster, outcome: 'lease-held', events: 0 };
  deps.logger.debug('bridge run holds the lease', {
    versions: stored,
    watchForMs: opts.deadlineMs - deps.clock.now(),
  });
  const run = new BridgeRun(deps, opts, ttl);
  try {
    // Checkpoints renew the lease once watching; until then, this does.
    await whileHoldingLease(
      deps,
      { ttlMs: ttl, runUntilMs: opts.deadlineMs },
      () => run.start(stored)
    );
    await run.watchAll();
    await run.checkpointAndResync();
    await leases.release(cluster, holder);
    return { cluster, outcome: 'done', events: run.events(), ...run.skipped() };
  } catch (e) {
    if (e instanceof BridgeLeaseLostError) {
      deps.logger.warn('lease lost; stopping', { cluster });
      return {
        cluster,
        outcome: 'lease-lost',
        events: run.events(),
        ...run.skipped(),
      };
    }
    // Let the next invocation take over at once; its checkpoint is intact.
    await leases.release(cluster, holder).catch(() => undefined);
    throw e;
  } finally {
    run.abort.abort();
  }
};
