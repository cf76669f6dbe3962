/**
 * no-pod-on-ineligible-node: a live daemon pod on a node that must not run
 * it (upstream !shouldContinueRunning: selector, affinity or nodeName unmet,
 * or an untolerated NoExecute taint) is removed by the controller within
 * the grace, counting only time in which the runner did not block the
 * controller (cluster unreachable, API faults). Each pod is reported once.
 *
 * A bound pod whose node object is gone is left out: upstream leaves those
 * to the pod garbage collector. An unbound one is in, since upstream's
 * getUnscheduledPodsWithoutNode deletes it.
 */
import { type ClusterView, isLive, keyOf, targetNode } from './cluster-view.js';
import type { DaemonSet, Pod } from './kube-objects.js';
import { nodeShouldRunDaemonPod, type RunLabel } from './node-eligibility.js';
import type { Violation } from './violation.js';

interface Stay {
  /** Unblocked time the pod has spent on the node that must not run it. */
  accruedMs: number;
  /** The view time up to which `accruedMs` is counted. */
  lastMs: number;
}

/**
 * Accrues each misplaced pod's unblocked time and reports overstays. The
 * checker's view lags the wall clock (events are held to order the watches),
 * so stays are judged at the view's time and the runner's block changes,
 * made in wall time, are kept as a timeline (campaign seed 90001: a pod
 * deleted 13.4 s into its grace, reported at 15 s from a view 2 s old).
 */
export class IneligiblePodMonitor {
  readonly #stays = new Map<string, Stay>();
  readonly #reported = new Set<string>();
  /** The runner's block changes, oldest first (unblocked before the first). */
  readonly #blocks: { atMs: number; blocked: boolean }[] = [];

  constructor(
    private readonly runLabel: RunLabel,
    private readonly graceMs: number
  ) {}

  /** Records that the runner blocks (true) or unblocks the controller at `nowMs`. */
  setBlocked(blocked: boolean, nowMs: number): void {
    if ((this.#blocks.at(-1)?.blocked ?? false) === blocked) return;
    this.#blocks.push({ atMs: nowMs, blocked });
  }

  /** Returns the pods whose stay exceeded the grace in a view current up to `viewMs`. */
  evaluate(view: ClusterView, viewMs: number): Violation[] {
    const found: Violation[] = [];
    const misplaced = new Set<string>();
    for (const ds of view.activeDaemonSets()) {
      for (const pod of view.daemonPods(ds).filter(isLive)) {
        const refusal = this.#refusal(view, ds, pod);
        if (refusal === undefined) continue;
        const uid = pod.metadata.uid;
        misplaced.add(uid);
        const stay = this.#stays.get(uid) ?? { accruedMs: 0, lastMs: viewMs };
        stay.accruedMs += this.#unblockedMs(stay.lastMs, viewMs);
        stay.lastMs = Math.max(stay.lastMs, viewMs);
        this.#stays.set(uid, stay);
        if (stay.accruedMs <= this.graceMs || this.#reported.has(uid)) continue;
        this.#reported.add(uid);
        found.push(overstay(ds, pod, refusal, stay, viewMs));
      }
    }
    for (const uid of [...this.#stays.keys()]) {
      if (!misplaced.has(uid)) this.#stays.delete(uid);
    }
    return found;
  }

  /** Returns the unblocked time between `fromMs` and `toMs`. */
  #unblockedMs(fromMs: number, toMs: number): number {
    let total = 0;
    let blocked = false;
    let since = fromMs;
    for (const change of this.#blocks) {
      if (change.atMs >= toMs) break;
      if (change.atMs > since) {
        if (!blocked) total += change.atMs - since;
        since = change.atMs;
      }
      blocked = change.blocked;
    }
    if (!blocked && toMs > since) total += toMs - since;
    return total;
  }

  /** Returns why the pod's node must not run it, if it must not. */
  #refusal(view: ClusterView, ds: DaemonSet, pod: Pod): string | undefined {
    const nodeName = targetNode(pod);
    if (nodeName === undefined) return undefined;
    const node = view.nodes.get(nodeName);
    if (!node) {
      return pod.spec?.nodeName ? undefined : 'the node does not exist';
    }
    const verdict = nodeShouldRunDaemonPod(node, ds, this.runLabel);
    return verdict.shouldContinueRunning ? undefined : verdict.reason;
  }
}

const overstay = (
  ds: DaemonSet,
  pod: Pod,
  refusal: string,
  stay: Stay,
  nowMs: number
): Violation => {
  const node = targetNode(pod) ?? '-';
  return {
    invariant: 'no-pod-on-ineligible-node',
    atMs: nowMs,
    daemonSet: keyOf(ds.metadata),
    node,
    pod: pod.metadata.name,
    detail:
      `${keyOf(ds.metadata)}: pod ${pod.metadata.name} still live on node ` +
      `${node} after ${(stay.accruedMs / 1000).toFixed(1)} s of unblocked ` +
      `time; the node must not run it: ${refusal}`,
  };
};
