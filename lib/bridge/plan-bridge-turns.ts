/**
 * The bridge dispatcher's pure planning: which clusters need a bridge run
 * launched on this tick, and how those runs are packed into invocations.
 *
 * - An economy cluster gets a run of its own every tick unless one still
 *   holds its lease or is on its way: whatever the watch clusters do, it is
 *   drained within a minute. More economy runs than the economy function's
 *   reservation are launched spread over a third of the tick, each at a
 *   point fixed by its id, not all in one second: Lambda throttles the
 *   excess of a burst and drops what is still throttled a minute later.
 * - A watch cluster's run is succeeded before it ends: once its planned end
 *   is within `handoverLeadMs`, a successor is launched that waits for the
 *   end and takes the lease at once (the cluster is unwatched for the time
 *   of one checkpoint, a release and one lease poll).
 * - A watch cluster with no live run gets one whose first turn is shortened
 *   by a fraction fixed by its id, so that hand-overs of clusters started
 *   together (a deploy, a region coming back) spread over the period
 *   instead of falling on the same second forever.
 * - A launched run is claimed on the lease first, so a late or doubled tick
 *   never launches two; a claim nobody acted on goes stale.
 * - A cluster whose runs fail (unreachable, credentials) is retried after
 *   10 s, doubling to 5 minutes, not at every tick; a checkpoint resets it.
 */
import type {
  BridgeTurn,
  ClusterRecord,
  ClusterTurn,
  LeaseView,
} from '../ports/index.js';

/** What the dispatcher knows on one tick. */
export interface BridgePlanInput {
  records: readonly Pick<ClusterRecord, 'id' | 'bridgeMode'>[];
  leases: ReadonlyMap<string, LeaseView>;
  nowMs: number;
  /** A watch run's full length. */
  watchMs: number;
  /** An economy run's longest drain. */
  economyMs: number;
  /** A watch run is succeeded when its end is this near (tick + slack). */
  handoverLeadMs: number;
  /** A take-over claim older than this was never acted on. */
  claimStaleMs: number;
  /** The dispatcher's tick (failure backoffs count in ticks). */
  tickMs: number;
  /**
   * Economy runs launched at once at most (the economy function's reserved
   * concurrency); more are spread over the tick. Absent: never spread.
   */
  economyBurst?: number;
}

/** The share of a tick economy launches spread over (20 s of 60 s). */
export const ECONOMY_SPREAD_TICKS = 1 / 3;

/** A run to launch for one cluster, and the claim it needs first. */
export interface PlannedRun extends ClusterTurn {
  mode: BridgeTurn['mode'];
  /** The holder to take over from (undefined: the lease is free). */
  takeOverFrom: string | undefined;
  /** Nodes at the last checkpoint (0 when never seen). */
  nodes: number;
  /** How long after the tick's start the run is launched (absent: at once). */
  launchDelayMs?: number;
}

/** Returns the runs this tick must launch, in registry order. */
export const planBridgeRuns = (input: BridgePlanInput): PlannedRun[] => {
  const runs: PlannedRun[] = [];
  for (const record of input.records) {
    const lease = input.leases.get(record.id);
    const run =
      record.bridgeMode === 'economy'
        ? planEconomyRun(record.id, lease, input)
        : planWatchRun(record.id, lease, input);
    if (run !== undefined) runs.push(run);
  }
  return spreadEconomyRuns(runs, input);
};

/**
 * Delays each economy run by a point of the spread fixed by its id (as
 * first watch turns are staggered) once they outnumber the burst, and moves
 * its end by as much: a cluster is drained at the same second of every
 * tick, and every run keeps its whole drain.
 */
const spreadEconomyRuns = (
  runs: PlannedRun[],
  input: BridgePlanInput
): PlannedRun[] => {
  const economy = runs.filter((r) => r.mode === 'economy').length;
  if (input.economyBurst === undefined || economy <= input.economyBurst) {
    return runs;
  }
  const spreadMs = Math.floor(input.tickMs * ECONOMY_SPREAD_TICKS);
  return runs.map((run) => {
    if (run.mode !== 'economy') return run;
    const launchDelayMs = clusterHash(run.cluster) % (spreadMs + 1);
    return { ...run, launchDelayMs, stopAtMs: run.stopAtMs + launchDelayMs };
  });
};

const isLive = (lease: LeaseView | undefined, nowMs: number): boolean =>
  lease?.holder !== undefined && lease.leaseUntilMs >= nowMs;

/**
 * A cluster whose runs keep failing is launched again after a sixth of a
 * tick, doubling up to five ticks: 10 s to 5 min at the 60-s schedule.
 * In ticks, so a faster schedule (the tests', the campaign's) backs off in
 * proportion and a cluster is never left unwatched for many of its ticks
 * (a transient failure is retried within its turn: bridge-invocation.ts).
 */
export const bridgeRetryAtMs = (
  failures: { count: number; lastAtMs: number },
  tickMs: number
): number =>
  failures.lastAtMs +
  Math.min(5 * tickMs, (tickMs / 6) * 2 ** Math.min(failures.count - 1, 20));

const isBackingOff = (lease: LeaseView | undefined, input: BridgePlanInput) =>
  lease?.failures !== undefined &&
  input.nowMs < bridgeRetryAtMs(lease.failures, input.tickMs);

const isClaimed = (lease: LeaseView | undefined, input: BridgePlanInput) =>
  lease?.claimedAtMs !== undefined &&
  lease.claimedAtMs >= input.nowMs - input.claimStaleMs;

const planEconomyRun = (
  cluster: string,
  lease: LeaseView | undefined,
  input: BridgePlanInput
): PlannedRun | undefined => {
  if (
    isLive(lease, input.nowMs) ||
    isClaimed(lease, input) ||
    isBackingOff(lease, input)
  ) {
    return undefined;
  }
  return {
    cluster,
    mode: 'economy',
    stopAtMs: input.nowMs + input.economyMs,
    takeOverFrom: undefined,
    nodes: lease?.size?.nodes ?? 0,
  };
};

const planWatchRun = (
  cluster: string,
  lease: LeaseView | undefined,
  input: BridgePlanInput
): PlannedRun | undefined => {
  if (isClaimed(lease, input)) return undefined;
  const nodes = lease?.size?.nodes ?? 0;
  if (!isLive(lease, input.nowMs)) {
    if (isBackingOff(lease, input)) return undefined;
    // Never shorter than the lead: a tick must see the run live to launch
    // its successor, or the cluster would start afresh after every turn.
    const turnMs = Math.max(
      firstTurnMs(cluster, input.watchMs),
      input.handoverLeadMs
    );
    return {
      cluster,
      mode: 'watch',
      stopAtMs: input.nowMs + turnMs,
      takeOverFrom: undefined,
      nodes,
    };
  }
  const holder = lease?.holder as string;
  const runUntilMs = lease?.runUntilMs;
  // A run that set no end (an older bridge) is left to end by itself.
  if (runUntilMs === undefined) return undefined;
  if (runUntilMs - input.nowMs > input.handoverLeadMs) return undefined;
  return {
    cluster,
    mode: 'watch',
    stopAtMs: runUntilMs + input.watchMs,
    after: { holder, runUntilMs },
    takeOverFrom: holder,
    nodes,
  };
};

/**
 * Returns the length of a cluster's first watch turn: between a quarter of
 * the period and all of it, fixed by the id (FNV-1a), so that clusters
 * started together hand over at different times from then on.
 */
export const firstTurnMs = (cluster: string, watchMs: number): number => {
  const quarter = Math.floor(watchMs / 4);
  return quarter + (clusterHash(cluster) % (watchMs - quarter + 1));
};

/** The cluster id's FNV-1a hash: a point of a period fixed by the id. */
const clusterHash = (cluster: string): number => {
  let hash = 0x811c9dc5;
  for (const ch of cluster) {
    hash ^= ch.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
};

/** How many clusters, and how large, one invocation may bridge at once. */
export interface TurnLimits {
  /** Clusters per watch invocation (1: every cluster in its own). */
  clustersPerTurn: number;
  /** Summed nodes per watch invocation; a larger cluster runs alone. */
  nodesPerTurn: number;
}

/** The weight of a cluster never seen, or a tiny one (connections, lists). */
const MIN_TURN_NODES = 50;

/**
 * Packs runs into invocations: an economy run always alone (short, and a
 * crash or a relist of one cluster must not touch another); watch runs
 * first-fit by their end, within the count and node limits.
 */
export const packBridgeTurns = (
  runs: readonly PlannedRun[],
  limits: TurnLimits
): BridgeTurn[] => {
  const turns: BridgeTurn[] = [];
  const open: { turn: BridgeTurn; nodes: number }[] = [];
  const byEnd = [...runs].sort((a, b) => a.stopAtMs - b.stopAtMs);
  for (const run of byEnd) {
    const part: ClusterTurn = {
      cluster: run.cluster,
      stopAtMs: run.stopAtMs,
      ...(run.after ? { after: run.after } : {}),
    };
    if (run.mode === 'economy') {
      turns.push({ mode: 'economy', clusters: [part] });
      continue;
    }
    const weight = Math.max(run.nodes, MIN_TURN_NODES);
    const fit = open.find(
      (o) =>
        o.turn.clusters.length < limits.clustersPerTurn &&
        o.nodes + weight <= limits.nodesPerTurn
    );
    if (fit !== undefined) {
      fit.turn.clusters.push(part);
      fit.nodes += weight;
      continue;
    }
    const turn: BridgeTurn = { mode: 'watch', clusters: [part] };
    open.push({ turn, nodes: weight });
    turns.push(turn);
  }
  return turns;
};
