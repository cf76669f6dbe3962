/**
 * unavailable-within-budget: during a RollingUpdate, the nodes the
 * controller itself has left without an available pod never outnumber
 * maxUnavailable (scaled against the desired nodes, rounded up; 0 with
 * surge; see rolling-budget.ts).
 *
 * A node counts when it is eligible, has no available daemon pod, and lost
 * its last available one to a deletion the runner did not announce with
 * markChaos: upstream deletes old pods only while "the number of new pods
 * that are unavailable [stays] less than maxUnavailable", and with surge
 * only once the node's new pod is available. Nodes that never had a pod,
 * and pods that fail or go unready, are not the controller's doing (upstream
 * replaces unavailable old pods freely), so they do not count.
 */
import {
  type ClusterView,
  isAvailable,
  isLive,
  keyOf,
  targetNode,
} from './cluster-view.js';
import type { DaemonSet, Pod } from './kube-objects.js';
import { nodeShouldRunDaemonPod, type RunLabel } from './node-eligibility.js';
import {
  describeStrategy,
  isRollingUpdate,
  unavailabilityBudget,
} from './rolling-budget.js';
import type { Violation } from './violation.js';

/** The deletion that left a node without an available pod. */
interface Loss {
  pod: string;
  atMs: number;
}

/** Attributes losses to deletions and reports each breach once. */
export class UnavailabilityBudgetMonitor {
  /** DaemonSet uid → node → the deletion that emptied it. */
  readonly #losses = new Map<string, Map<string, Loss>>();
  readonly #open = new Set<string>();

  constructor(
    private readonly runLabel: RunLabel,
    private readonly isChaos: (podName: string) => boolean
  ) {}

  /** Records, before the view applies it, a change of one pod. */
  observePodChange(
    view: ClusterView,
    before: Pod | undefined,
    after: Pod | undefined,
    atMs: number
  ): void {
    if (!before || (after && isLive(after))) return;
    const removed = !after || Boolean(after.metadata.deletionTimestamp);
    if (!removed || this.isChaos(before.metadata.name)) return;
    const ds = view.ownerOf(before);
    const node = targetNode(before);
    if (!ds || !node || !isRollingUpdate(ds)) return;
    if (!isAvailable(before, ds.spec.minReadySeconds ?? 0, atMs)) return;
    const losses = this.#losses.get(ds.metadata.uid) ?? new Map();
    losses.set(node, { pod: before.metadata.name, atMs });
    this.#losses.set(ds.metadata.uid, losses);
  }

  /** Returns the breaches that began at `atMs`. */
  evaluate(view: ClusterView, atMs: number): Violation[] {
    const found: Violation[] = [];
    for (const ds of view.activeDaemonSets()) {
      const uid = ds.metadata.uid;
      const losses = this.#losses.get(uid);
      if (!losses || !isRollingUpdate(ds)) {
        this.#losses.delete(uid);
        this.#open.delete(uid);
        continue;
      }
      const desired = this.#forgetRecovered(view, ds, losses, atMs);
      const budget = unavailabilityBudget(ds, desired);
      if (losses.size <= budget) {
        this.#open.delete(uid);
        continue;
      }
      if (this.#open.has(uid)) continue;
      this.#open.add(uid);
      found.push(breach(ds, losses, budget, desired, atMs));
    }
    return found;
  }

  /**
   * Drops losses on nodes that have an available pod again or must not
   * run the DaemonSet any more; returns the number of eligible nodes.
   */
  #forgetRecovered(
    view: ClusterView,
    ds: DaemonSet,
    losses: Map<string, Loss>,
    atMs: number
  ): number {
    const eligible = new Set<string>();
    for (const node of view.nodes.values()) {
      if (nodeShouldRunDaemonPod(node, ds, this.runLabel).shouldRun) {
        eligible.add(node.metadata.name);
      }
    }
    const minReady = ds.spec.minReadySeconds ?? 0;
    const served = new Set(
      view
        .daemonPods(ds)
        .filter((p) => isAvailable(p, minReady, atMs))
        .map(targetNode)
    );
    for (const node of [...losses.keys()]) {
      if (!eligible.has(node) || served.has(node)) losses.delete(node);
    }
    return eligible.size;
  }
}

const breach = (
  ds: DaemonSet,
  losses: Map<string, Loss>,
  budget: number,
  desired: number,
  atMs: number
): Violation => {
  const list = [...losses.entries()].sort((a, b) => a[1].atMs - b[1].atMs);
  const last = list.at(-1)?.[0];
  return {
    invariant: 'unavailable-within-budget',
    atMs,
    daemonSet: keyOf(ds.metadata),
    ...(last ? { node: last } : {}),
    detail:
      `${keyOf(ds.metadata)}: ${losses.size} eligible nodes lost their ` +
      `available pod to deletions not marked chaos (` +
      list.map(([node, l]) => `${node} by ${l.pod}`).join(', ') +
      `), budget ${budget} (${describeStrategy(ds)} of ${desired} desired)`,
  };
};
