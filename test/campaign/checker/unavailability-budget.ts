/**
 * unavailable-within-budget: during a RollingUpdate (or the product's
 * rollout of an opted-in OnDelete DaemonSet, maxUnavailable read from its
 * annotation, no surge: the cluster's controller makes a pod only where
 * none is left), the nodes the
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
 *
 * Judged only when a loss is added, against the budget in force then:
 * upstream computes maxUnavailable per sync from the spec and the nodes it
 * sees, so a later strategy change or node loss does not make earlier
 * deletions wrong. The controller decides from a lagging cache, with a
 * skewed clock, and its DELETE may land seconds later, so everything is
 * read with `slackMs` in its favour: a pod counts only if it was available
 * `slackMs` before the deletion arrived, a node is forgiven if it was
 * ineligible within `slackMs` before, and the budget is the largest of the
 * specs and eligible-node counts in force within `slackMs`; with surge, a
 * node counts as served if another pod of the DaemonSet was available on it
 * within `slackMs`, as the controller reads availability.
 */
import {
  type ClusterView,
  isLive,
  isReady,
  keyOf,
  targetNode,
} from './cluster-view.js';
import type { DaemonSet, Pod } from './kube-objects.js';
import { nodeShouldRunDaemonPod, type RunLabel } from './node-eligibility.js';
import { RecentEligibility } from './recent-eligibility.js';
import {
  describeStrategy,
  isRolledOut,
  unavailabilityBudget,
} from './rolling-budget.js';
import type { Violation } from './violation.js';

/** The deletion that left a node without an available pod. */
interface Loss {
  pod: string;
  atMs: number;
}

/** When a daemon pod last stopped being available, on which node. */
interface AvailabilityEnd {
  dsUid: string;
  node: string;
  atMs: number;
}

/** Attributes losses to deletions and reports each breach once. */
export class UnavailabilityBudgetMonitor {
  /** DaemonSet uid → node → the deletion that emptied it. */
  readonly #losses = new Map<string, Map<string, Loss>>();
  /** DaemonSets whose current breach was reported. */
  readonly #open = new Set<string>();
  readonly #recent: RecentEligibility;
  /** Pod uid → when it stopped being available, kept `slackMs`. */
  readonly #ended = new Map<string, AvailabilityEnd>();

  constructor(
    private readonly runLabel: RunLabel,
    private readonly isChaos: (podName: string) => boolean,
    private readonly slackMs: number
  ) {
    this.#recent = new RecentEligibility(runLabel, slackMs);
  }

  /** Records the DaemonSets' specs and node eligibility after an applied event. */
  observeView(view: ClusterView, atMs: number): void {
    this.#recent.observe(view, atMs);
  }

  /**
   * Records, before the view applies it, a change of one pod; returns the
   * breach it begins when it is a loss beyond the budget.
   */
  observePodChange(
    view: ClusterView,
    before: Pod | undefined,
    after: Pod | undefined,
    atMs: number
  ): Violation[] {
    this.#noteAvailabilityEnd(view, before, after, atMs);
    if (!before || (after && isLive(after))) return [];
    const removed = !after || Boolean(after.metadata.deletionTimestamp);
    if (!removed || this.isChaos(before.metadata.name)) return [];
    const ds = view.ownerOf(before);
    const node = targetNode(before);
    if (!ds || !node || !isRolledOut(ds)) return [];
    const uid = ds.metadata.uid;
    const fromMs = atMs - this.slackMs;
    const minReady = ds.spec.minReadySeconds ?? 0;
    if (!isAvailableBy(before, minReady, fromMs)) return [];
    if (this.#recent.wasIneligibleSince(uid, node, fromMs)) return [];
    const losses = this.#losses.get(uid) ?? new Map<string, Loss>();
    this.#losses.set(uid, losses);
    const served = this.#forgetRecovered(view, ds, losses, atMs, before);
    // With surge, the node's new pod may already serve it — or have served
    // it until a moment ago, in the lagging view the controller decided
    // from (campaign seed 100164: the new pod failed by chaos 25 ms before
    // the old one's deletion, decided 2.6 s earlier, landed).
    if (served.has(node) || this.#servedWithin(uid, node, before, fromMs)) {
      return [];
    }
    losses.set(node, { pod: before.metadata.name, atMs });
    const desired = this.#recent.eligibleSince(uid, fromMs);
    const budget = Math.max(
      ...this.#recent
        .specsSince(ds, fromMs)
        .filter(isRolledOut)
        .map((spec) => unavailabilityBudget(spec, desired))
    );
    if (losses.size <= budget) {
      this.#open.delete(uid);
      return [];
    }
    if (this.#open.has(uid)) return [];
    this.#open.add(uid);
    return [
      breach(ds, losses, { budget, desired, slackMs: this.slackMs }, atMs),
    ];
  }

  /** Notes the moment a pod that was available stops being so. */
  #noteAvailabilityEnd(
    view: ClusterView,
    before: Pod | undefined,
    after: Pod | undefined,
    atMs: number
  ): void {
    for (const [uid, end] of this.#ended) {
      if (end.atMs < atMs - this.slackMs) this.#ended.delete(uid);
    }
    const ds = before && view.ownerOf(before);
    const node = before && targetNode(before);
    if (!before || !ds || !node) return;
    // The service that forgives a deletion, read as the controller reads it.
    const minReady = ds.spec.minReadySeconds ?? 0;
    if (!isAvailableBy(before, minReady, atMs, 'asController')) return;
    if (after && isAvailableBy(after, minReady, atMs, 'asController')) return;
    this.#ended.set(before.metadata.uid, {
      dsUid: ds.metadata.uid,
      node,
      atMs,
    });
  }

  /** Whether another pod of the DaemonSet was available on `node` at `fromMs` or later. */
  #servedWithin(
    dsUid: string,
    node: string,
    deleting: Pod,
    fromMs: number
  ): boolean {
    for (const [uid, end] of this.#ended) {
      if (
        uid !== deleting.metadata.uid &&
        end.dsUid === dsUid &&
        end.node === node &&
        end.atMs >= fromMs
      ) {
        return true;
      }
    }
    return false;
  }

  /** Drops the losses that are over (nodes served again or ineligible); judges nothing. */
  dropRecovered(view: ClusterView, atMs: number): void {
    for (const [uid, losses] of this.#losses) {
      const ds = view.activeDaemonSets().find((d) => d.metadata.uid === uid);
      if (!ds) {
        this.#losses.delete(uid);
        this.#open.delete(uid);
        continue;
      }
      this.#forgetRecovered(view, ds, losses, atMs);
      if (losses.size === 0) this.#open.delete(uid);
    }
  }

  /**
   * Drops losses on nodes that have an available pod (other than
   * `deleting`) by `atMs + slackMs`, or must not run the DaemonSet;
   * returns the nodes so served.
   */
  #forgetRecovered(
    view: ClusterView,
    ds: DaemonSet,
    losses: Map<string, Loss>,
    atMs: number,
    deleting?: Pod
  ): Set<string | undefined> {
    const minReady = ds.spec.minReadySeconds ?? 0;
    const served = new Set(
      view
        .daemonPods(ds)
        .filter((p) => p.metadata.uid !== deleting?.metadata.uid)
        .filter((p) => isAvailableBy(p, minReady, atMs + this.slackMs))
        .map(targetNode)
    );
    for (const name of [...losses.keys()]) {
      const node = view.nodes.get(name);
      const eligible =
        node !== undefined &&
        nodeShouldRunDaemonPod(node, ds, this.runLabel).shouldRun;
      if (!eligible || served.has(name)) losses.delete(name);
    }
    return served;
  }
}

/**
 * Returns whether a live pod was available (upstream IsPodAvailable) by
 * `atMs`: Ready, and Ready for longer than minReadySeconds. Read `surely`,
 * the Ready transition time, with second precision (truncated), may be up
 * to a second before the pod turned Ready; a missing time counts as long ago
 * only when minReadySeconds is 0. Read `asController`, as upstream reads
 * it: with minReadySeconds 0, Ready is enough, since any moment (seeds
 * 220088, 220449: a new pod Ready for 87–153 ms, then failed by chaos, had
 * served its node in the controller's view).
 */
const isAvailableBy = (
  pod: Pod,
  minReadySeconds: number,
  atMs: number,
  reading: 'surely' | 'asController' = 'surely'
): boolean => {
  if (!isLive(pod) || !isReady(pod)) return false;
  if (reading === 'asController' && minReadySeconds === 0) return true;
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  const since = Date.parse(ready?.lastTransitionTime ?? '');
  if (Number.isNaN(since)) return minReadySeconds === 0;
  const truncated = reading === 'surely' ? 1_000 : 0;
  return since + truncated + minReadySeconds * 1_000 <= atMs;
};

const breach = (
  ds: DaemonSet,
  losses: Map<string, Loss>,
  {
    budget,
    desired,
    slackMs,
  }: { budget: number; desired: number; slackMs: number },
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
      `), budget ${budget} (${describeStrategy(ds)} of ${desired} desired ` +
      `nodes, the most allowed within ${slackMs} ms before)`,
  };
};
