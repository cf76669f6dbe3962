/**
 * One tick of the bridge dispatcher (every minute): list the registry, read
 * every cluster's lease, plan the runs this tick must start, claim each on
 * its lease (so a late or doubled tick launches nothing twice), pack them
 * into turns and launch each turn as its own invocation of the bridge
 * function. Nothing here watches a cluster: a cluster's memory, connections,
 * relists and crashes live in the invocation that bridges it.
 */
import { toError } from '../errors.js';
import type {
  BridgeLauncher,
  BridgeLeaseStore,
  BridgeTurn,
  CheckpointAge,
  Clock,
  ClusterRegistry,
  InvalidClusterRecord,
  LeaseView,
  Logger,
} from '../ports/index.js';
import { abortableSleep } from './abortable-sleep.js';
import { LEASE_TTL_MS } from './cluster-bridge.js';
import {
  type PlannedRun,
  packBridgeTurns,
  planBridgeRuns,
  type TurnLimits,
} from './plan-bridge-turns.js';

/** The dispatcher's tick (the schedule's rate). */
export const DISPATCH_TICK_MS = 60_000;

/** What a dispatcher tick needs. */
export interface BridgeDispatchDeps {
  registry: Pick<ClusterRegistry, 'list'>;
  leases: Pick<BridgeLeaseStore, 'peek' | 'claimTakeOver'>;
  launcher: BridgeLauncher;
  clock: Clock;
  logger: Logger;
  /** Waits before a spread launch (default: a timer); tests record it. */
  sleep?: (ms: number) => Promise<void>;
}

/** The dispatcher's knobs. */
export interface BridgeDispatchOptions extends TurnLimits {
  /** This tick's id: the claims it makes (a retried claim is its own). */
  tickId: string;
  watchSeconds: number;
  economySeconds: number;
  /** How often ticks come (default DISPATCH_TICK_MS); tests shorten it. */
  tickMs?: number;
  /** The bridge runs' lease TTL (default LEASE_TTL_MS); tests shorten it. */
  leaseTtlMs?: number;
  /** Economy runs launched at once at most (see planBridgeRuns). */
  economyBurst?: number;
}

/** What a tick did. */
export interface DispatchReport {
  /** Registered clusters (valid records). */
  clusters: number;
  invalid: InvalidClusterRecord[];
  /** Turns launched, with their clusters. */
  launched: BridgeTurn[];
  /** Turns whose launch failed (their claims go stale; a later tick retries). */
  failedLaunches: number;
  /** Runs whose claim failed with an error (not launched; the next tick retries). */
  failedClaims: number;
  /**
   * The age of each registered cluster's last bridge checkpoint, read from
   * the leases this tick peeks anyway (clusters never checkpointed absent).
   */
  checkpointAges: CheckpointAge[];
}

/** Runs one dispatcher tick; a failed claim or launch never stops the others. */
export const dispatchBridgeTurns = async (
  deps: BridgeDispatchDeps,
  opts: BridgeDispatchOptions
): Promise<DispatchReport> => {
  const { records, invalid } = await deps.registry.list();
  for (const item of invalid) {
    deps.logger.error('invalid cluster record skipped', {
      record: item.key,
      error: item.error,
      invalidRecords: invalid.length,
    });
  }
  const tickMs = opts.tickMs ?? DISPATCH_TICK_MS;
  const ttlMs = opts.leaseTtlMs ?? LEASE_TTL_MS;
  // The next tick may come late by up to half a tick.
  const handoverLeadMs = tickMs * 1.5;
  // A launched run waits at most a lead and a lease TTL for its lease; a
  // claim older than that (and a tick) was never acted on.
  const claimStaleMs = handoverLeadMs + ttlMs + tickMs;
  const leases = await deps.leases.peek(records.map((r) => r.id));
  const nowMs = deps.clock.now();
  const runs = planBridgeRuns({
    records,
    leases,
    nowMs,
    watchMs: opts.watchSeconds * 1_000,
    economyMs: opts.economySeconds * 1_000,
    handoverLeadMs,
    claimStaleMs,
    tickMs,
    ...(opts.economyBurst ? { economyBurst: opts.economyBurst } : {}),
  });
  const { claimed, failedClaims } = await claimRuns(
    deps,
    runs,
    opts.tickId,
    claimStaleMs
  );
  const turns = packBridgeTurns(claimed, opts);
  const delays = new Map(claimed.map((r) => [r.cluster, r.launchDelayMs]));
  const wait = deps.sleep ?? abortableSleep;
  const launched: BridgeTurn[] = [];
  let failedLaunches = 0;
  await Promise.all(
    turns.map(async (turn) => {
      const delayMs =
        turn.mode === 'economy'
          ? delays.get(turn.clusters[0]?.cluster ?? '')
          : 0;
      if (delayMs) await wait(delayMs);
      try {
        await deps.launcher.launch(turn);
        launched.push(turn);
      } catch (e) {
        failedLaunches++;
        deps.logger.error('bridge turn not launched', {
          clusters: turn.clusters.map((c) => c.cluster),
          error: toError(e).message,
        });
      }
    })
  );
  return {
    clusters: records.length,
    invalid,
    launched,
    failedLaunches,
    failedClaims,
    checkpointAges: checkpointAgesOf(leases, nowMs),
  };
};

/** Returns the age of each lease's last checkpoint at `nowMs`. */
const checkpointAgesOf = (
  leases: ReadonlyMap<string, LeaseView>,
  nowMs: number
): CheckpointAge[] =>
  [...leases].flatMap(([cluster, lease]) =>
    lease.checkpointedAtMs === undefined
      ? []
      : [{ cluster, ageMs: Math.max(0, nowMs - lease.checkpointedAtMs) }]
  );

/** Returns the runs whose claim this tick holds, and how many claims failed. */
const claimRuns = async (
  deps: BridgeDispatchDeps,
  runs: readonly PlannedRun[],
  claimId: string,
  staleMs: number
): Promise<{ claimed: PlannedRun[]; failedClaims: number }> => {
  let failedClaims = 0;
  const claims = await Promise.all(
    runs.map(async (run) => {
      try {
        return await deps.leases.claimTakeOver(
          run.cluster,
          run.takeOverFrom,
          claimId,
          staleMs
        );
      } catch (e) {
        failedClaims++;
        deps.logger.error('bridge run not claimed', {
          cluster: run.cluster,
          error: toError(e).message,
        });
        return false;
      }
    })
  );
  return { claimed: runs.filter((_, i) => claims[i]), failedClaims };
};
