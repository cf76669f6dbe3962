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
  lastMs: number;
}

/** Accrues each misplaced pod's unblocked time and reports overstays. */
export class IneligiblePodMonitor {
  readonly #stays = new Map<string, Stay>();
  readonly #reported = new Set<string>();
  #blocked = false;

  constructor(
    private readonly runLabel: RunLabel,
    private readonly graceMs: number
  ) {}

  /** Accrues time up to `nowMs` under the old setting, then switches. */
  setBlocked(view: ClusterView, blocked: boolean, nowMs: number): Violation[] {
    const found = this.evaluate(view, nowMs);
    this.#blocked = blocked;
    return found;
  }

  /** Returns the pods whose stay exceeded the grace at `nowMs`. */
  evaluate(view: ClusterView, nowMs: number): Violation[] {
    const found: Violation[] = [];
    const misplaced = new Set<string>();
    for (const ds of view.activeDaemonSets()) {
      for (const pod of view.daemonPods(ds).filter(isLive)) {
        const refusal = this.#refusal(view, ds, pod);
        if (refusal === undefined) continue;
        const uid = pod.metadata.uid;
        misplaced.add(uid);
        const stay = this.#stays.get(uid) ?? { accruedMs: 0, lastMs: nowMs };
        if (!this.#blocked) stay.accruedMs += Math.max(0, nowMs - stay.lastMs);
        stay.lastMs = nowMs;
        this.#stays.set(uid, stay);
        if (stay.accruedMs <= this.graceMs || this.#reported.has(uid)) continue;
        this.#reported.add(uid);
        found.push(overstay(ds, pod, refusal, stay, nowMs));
      }
    }
    for (const uid of [...this.#stays.keys()]) {
      if (!misplaced.has(uid)) this.#stays.delete(uid);
    }
    return found;
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
