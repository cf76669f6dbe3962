/**
 * What a campaign run is given and what it finds (campaign-run.ts), and the
 * bug it can plant to prove the checker finds one.
 */
import type { KubeHttp } from '#lib/adapters/kube/kube-http.js';
import type { ClusterReader } from '#lib/ports/index.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import type { AwsWiring } from '#lib/wiring/aws.js';
import type { HistoryEntry, Violation } from './checker/invariant-checker.js';
import type { DaemonSetKind } from './checker/kube-objects.js';
import { drawFaultPlan, type FaultKind, type FaultPlan } from './fault-plan.js';
import { SeededRandom } from './seeded-random.js';
import { drawWorkload, type PlannedAction } from './workload.js';

/** The shared test bed a run uses. */
export interface CampaignBed {
  admin: KubeHttp;
  adminKubeconfigPath: string;
  kubectl: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  /** Where a run may write files (its kubeconfig). */
  workDir: string;
  /** Where each run's stack log goes (seed-<seed>-<namespace>.log). */
  logDir: string;
}

/**
 * The kind a run's DaemonSets are: apps/v1, reconciled in the cluster's
 * `apps/v1` ownership mode, or the own AdvancedDaemonSet, in the
 * `apps.dsr.dev/v1beta1` mode with Kruise's rollout controls.
 */
export type CampaignKind = DaemonSetKind;

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
  plan?: FaultPlan;
  actions?: PlannedAction[];
}

/**
 * Bugs the campaign can plant to prove it finds them: `stale-cache` makes
 * every container's expectations store answer "satisfied" and its cached
 * lists ignore the versions a sync must reach — a controller acting on a
 * stale informer without expectations, the bug that upstream's
 * expectations and the product's seen versions both exist to prevent (each
 * alone covers for the other: planting only one no longer shows).
 */
export type PlantedBug = 'stale-cache';

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
  if (bug !== 'stale-cache') return wiring;
  // One store serves the sessions and the bridge (lib/wiring/aws.ts).
  wiring.bridge.expectations.satisfiedExpectations = async () => true;
  const open = wiring.sessions.get.bind(wiring.sessions);
  const wrapped = new WeakSet<object>();
  wiring.sessions.get = async (clusterId) => {
    const session = await open(clusterId);
    if (session !== undefined && !wrapped.has(session)) {
      wrapped.add(session);
      session.deps.reader = ignoringSeenVersions(session.deps.reader);
    }
    return session;
  };
  return wiring;
};

/** The cost of a run, counted on the wire. */
export interface RunCost {
  apiRequests: number;
  dynamodbCalls: number;
  sqsCalls: number;
  reconcileInvocations: number;
}

/** What one run found. */
export interface RunResult {
  seed: number;
  kind: CampaignKind;
  plan: FaultPlan;
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

/** Returns the seed's plan and workload (unless given). */
export const planOf = (o: RunOptions) => {
  const random = new SeededRandom(o.seed);
  const [fewest, most] = o.windows ?? [4, 10];
  const windows = random.fork('size').int(fewest, most);
  const kind: CampaignKind = random.fork('kind').chance(o.ownKindShare ?? 0)
    ? 'AdvancedDaemonSet'
    : 'DaemonSet';
  return {
    kind,
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
