/**
 * What a campaign run is given and what it finds (campaign-run.ts), and the
 * bug it can plant to prove the checker finds one.
 */
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import type { ClusterReader } from '#lib/ports/index.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import type { AwsWiring } from '#lib/wiring/aws.js';
import type { HistoryEntry, Violation } from './checker/invariant-checker.js';
import {
  CLUSTER_FAULT_KINDS,
  drawFaultPlan,
  type FaultKind,
  type FaultPlan,
} from './fault-plan.js';
import {
  misreadingControls,
  ON_DELETE_PLANTS,
  type OnDeletePlant,
} from './on-delete-plants.js';
import type { CampaignKind } from './run-kind.js';
import { SeededRandom } from './seeded-random.js';
import { drawWorkload, type PlannedAction } from './workload.js';

/** One Kubernetes cluster of a test bed, as its admin reaches it. */
export interface ClusterBed {
  admin: KubeHttp;
  adminKubeconfigPath: string;
}

/** The shared test bed a run uses. */
export interface CampaignBed extends ClusterBed {
  /**
   * More clusters, for runs of more than one: API servers of their own
   * (with their scheduler and KWOK) on the bed's etcd.
   */
  tenants?: readonly ClusterBed[];
  kubectl: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  /** Where a run may write files (its kubeconfig). */
  workDir: string;
  /** Where each run's stack log goes (seed-<seed>-<namespace>.log). */
  logDir: string;
}

export {
  type CampaignKind,
  objectKindOf,
  ownershipOf,
} from './run-kind.js';

/** What one run does; plan and workload default to the seed's. */
export interface RunOptions {
  seed: number;
  nodes: number;
  daemonSets: number;
  /** How long faults and workload go on. */
  faultMs: number;
  /** The liveness bound after faults stop. */
  convergeTimeoutMs: number;
  /** How many fault windows a run draws (default 4–10). */
  windows?: [number, number];
  /** A bug planted in the product's state, to show the checker catches it. */
  plant?: PlantedBug;
  /** No faults at all (the cost baseline of the same seed). */
  faultFree?: boolean;
  /**
   * The share of seeds (0–1) whose run is of the own kind, drawn from the
   * seed's own sub-stream (default 0: every run apps/v1, as before the
   * own kind joined, so older seeds replay unchanged).
   */
  ownKindShare?: number;
  /**
   * The share of seeds (0–1) whose run is of the OnDelete kind, drawn from
   * the seed's own `on-delete` sub-stream before the own kind's draw
   * (default 0: older seeds replay unchanged).
   */
  onDeleteShare?: number;
  /**
   * Clusters one stack manages in the run (default 1). The first takes the
   * seed's plan of every kind; each other its own plan of the kinds that
   * hit one API server, its own kind, and the same workload schedule.
   */
  clusters?: number;
  plan?: FaultPlan;
  actions?: PlannedAction[];
}

/**
 * Bugs the campaign can plant to prove it finds them (the OnDelete mode's
 * in on-delete-plants.ts): `stale-cache` makes
 * every container's expectations store answer "satisfied" and its cached
 * lists ignore the versions a sync must reach — a controller acting on a
 * stale informer without expectations, the bug that upstream's
 * expectations and the product's seen versions both exist to prevent (each
 * alone covers for the other: planting only one no longer shows).
 */
export type PlantedBug = 'stale-cache' | OnDeletePlant;

/** Every bug `--plant` knows. */
export const PLANTED_BUGS: readonly PlantedBug[] = [
  'stale-cache',
  ...ON_DELETE_PLANTS,
];

/** How far the planted stale informer lags behind the cluster. */
const PLANTED_LAG_MS = 2_000;

/**
 * Returns `reader` as a stale informer: the versions its lists must reach
 * ignored, and a DaemonSet's pods answered from a list up to
 * PLANTED_LAG_MS old.
 */
const ignoringSeenVersions = (reader: ClusterReader): ClusterReader => {
  const lagging = new Map<string, { atMs: number; pods: Promise<Pod[]> }>();
  return new Proxy(reader, {
    get: (target, name) => {
      if (name === 'listPods') {
        return (ns: string, owner: DaemonSet) => {
          const id = `${ns}/${owner.metadata?.uid ?? ''}`;
          const held = lagging.get(id);
          if (held && Date.now() - held.atMs < PLANTED_LAG_MS) return held.pods;
          const pods = target.listPods(ns, owner);
          lagging.set(id, { atMs: Date.now(), pods });
          return pods;
        };
      }
      if (name === 'listNodes') return () => target.listNodes();
      const value = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
};

/** Returns the wiring with `bug` planted in it. */
export const planted = (
  wiring: AwsWiring,
  bug: PlantedBug | undefined
): AwsWiring => {
  if (bug === undefined) return wiring;
  // One store serves the sessions and the bridge (lib/wiring/aws.ts).
  if (bug === 'stale-cache') {
    wiring.bridge.expectations.satisfiedExpectations = async () => true;
  }
  const open = wiring.sessions.get.bind(wiring.sessions);
  const wrapped = new WeakSet<object>();
  wiring.sessions.get = async (clusterId) => {
    const session = await open(clusterId);
    if (session !== undefined && !wrapped.has(session)) {
      wrapped.add(session);
      session.deps.reader =
        bug === 'stale-cache'
          ? ignoringSeenVersions(session.deps.reader)
          : misreadingControls(session.deps.reader, bug);
    }
    return session;
  };
  return wiring;
};

/** The cost of a run, counted on the wire. */
export interface RunCost {
  apiRequests: number;
  dynamodbCalls: number;
  /** The DynamoDB calls by kind (dynamodb-call-kinds.ts). */
  dynamodbCallKinds: Record<string, number>;
  sqsCalls: number;
  reconcileInvocations: number;
}

/** A run's cluster beyond the first: its kind and its API-side faults. */
export interface OtherCluster {
  kind: CampaignKind;
  plan: FaultPlan;
}

/** What one run found. */
export interface RunResult {
  seed: number;
  kind: CampaignKind;
  plan: FaultPlan;
  /** The run's other clusters (none in a one-cluster run). */
  otherClusters: OtherCluster[];
  actions: PlannedAction[];
  violations: Violation[];
  /** Set when the harness itself failed (the run proves nothing). */
  error?: string;
  injected: Partial<Record<FaultKind, number>>;
  /** From faults stopping to converged (undefined: it did not). */
  convergeMs: number | undefined;
  wallMs: number;
  cost: RunCost;
  /** The cost of the same seed without faults, when the campaign measured it. */
  baselineCost?: RunCost;
  containers: { started: number; killed: number; timedOut: number };
  /** The history around the first violation. */
  history: HistoryEntry[];
  /** The options the run was drawn from (a replay needs them all). */
  options: RunOptions;
  /** The stack's log lines after the faults stopped (the first 60). */
  logAfterFaults: string[];
}

/**
 * Draws a run's (or a cluster's) kind from its stream: OnDelete with the
 * chance `onDeleteShare` (a sub-stream of its own, so a share of 0 leaves
 * every other draw as it was), else the own kind with `ownKindShare`.
 */
const kindOf = (
  random: SeededRandom,
  ownKindShare = 0,
  onDeleteShare = 0
): CampaignKind => {
  if (random.fork('on-delete').chance(onDeleteShare)) return 'OnDelete';
  return random.fork('kind').chance(ownKindShare)
    ? 'AdvancedDaemonSet'
    : 'DaemonSet';
};

/**
 * Returns the seed's kind, plan and workload (plan and workload unless
 * given), and its other clusters', each from a stream of its own: adding
 * clusters leaves the first cluster's draws as they were.
 */
export const planOf = (o: RunOptions) => {
  const random = new SeededRandom(o.seed);
  const [fewest, most] = o.windows ?? [4, 10];
  const windows = random.fork('size').int(fewest, most);
  const otherClusters = Array.from(
    { length: Math.max(1, o.clusters ?? 1) - 1 },
    (_, i): OtherCluster => {
      const own = random.fork(`cluster-${i + 1}`);
      return {
        kind: kindOf(own, o.ownKindShare, o.onDeleteShare),
        plan: o.faultFree
          ? { windows: [] }
          : drawFaultPlan(
              own.fork('plan'),
              o.faultMs,
              own.fork('size').int(fewest, most),
              CLUSTER_FAULT_KINDS
            ),
      };
    }
  );
  return {
    kind: kindOf(random, o.ownKindShare, o.onDeleteShare),
    otherClusters,
    plan: o.faultFree
      ? { windows: [] }
      : (o.plan ?? drawFaultPlan(random.fork('plan'), o.faultMs, windows)),
    actions:
      o.actions ??
      drawWorkload(
        random.fork('workload'),
        o.faultMs,
        Math.ceil(o.faultMs / 1_500)
      ),
  };
};

/** The result of a run the harness could not carry out: it proves nothing. */
export const harnessFailure = (
  options: RunOptions,
  planned: ReturnType<typeof planOf>,
  e: unknown,
  wallMs: number
): RunResult => ({
  ...planned,
  seed: options.seed,
  options,
  violations: [],
  error: e instanceof Error ? (e.stack ?? e.message) : String(e),
  injected: {},
  convergeMs: undefined,
  wallMs,
  cost: {
    apiRequests: 0,
    dynamodbCalls: 0,
    dynamodbCallKinds: {},
    sqsCalls: 0,
    reconcileInvocations: 0,
  },
  containers: { started: 0, killed: 0, timedOut: 0 },
  history: [],
  logAfterFaults: [],
});
