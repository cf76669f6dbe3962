/**
 * one-daemon-pod-per-node: at every instant, each DaemonSet has at most one
 * live pod per node, or two while its spec allows surge (upstream's manage
 * loop "allows no more than two pods per node, one old, one new").
 *
 * When a spec goes from surge to no surge, the controller cannot remove the
 * extra pods in the same instant, and a sync already deciding with the old
 * spec may still create one. So for SURGE_END_GRACE_MS after the switch a
 * node may keep two live pods if both were created (creationTimestamp) by
 * SURGE_END_IN_FLIGHT_MS after it: a pod created later came from a sync
 * that saw the new spec, which never puts a second pod on a node.
 */
import { type ClusterView, isLive, keyOf, podsByNode } from './cluster-view.js';
import type { Pod } from './kube-objects.js';
import { allowsSurge } from './rolling-budget.js';
import type { Violation } from './violation.js';

/** How long after surge is switched off two pods per node are tolerated. */
export const SURGE_END_GRACE_MS = 30_000;
/** How long after the switch a sync with the old spec may still create a surge pod. */
export const SURGE_END_IN_FLIGHT_MS = 5_000;

interface SurgeState {
  allowed: boolean;
  endedAtMs?: number;
}

/** Tracks breaches per DaemonSet and node; reports each breach once. */
export class OnePodPerNodeMonitor {
  readonly #surge = new Map<string, SurgeState>();
  #open = new Set<string>();

  /** Returns the breaches that began at `atMs`. */
  evaluate(view: ClusterView, atMs: number): Violation[] {
    const found: Violation[] = [];
    const breaching = new Set<string>();
    for (const ds of view.activeDaemonSets()) {
      const surge = this.#surgeState(ds.metadata.uid, allowsSurge(ds), atMs);
      const live = view.daemonPods(ds).filter(isLive);
      for (const [node, pods] of podsByNode(live)) {
        const limit = surge.allowed || inSurgeEnd(surge, pods, atMs) ? 2 : 1;
        if (pods.length <= limit) continue;
        const key = `${ds.metadata.uid}/${node}`;
        breaching.add(key);
        if (this.#open.has(key)) continue;
        found.push({
          invariant: 'one-daemon-pod-per-node',
          atMs,
          daemonSet: keyOf(ds.metadata),
          node,
          detail:
            `${keyOf(ds.metadata)}: ${pods.length} live daemon pods on node ` +
            `${node} (limit ${limit}${surge.allowed ? ', surge allowed' : ''}): ` +
            pods.map(describePod).join(', '),
        });
      }
    }
    this.#open = breaching;
    return found;
  }

  #surgeState(uid: string, allowedNow: boolean, atMs: number): SurgeState {
    const state = this.#surge.get(uid) ?? { allowed: allowedNow };
    if (state.allowed && !allowedNow) state.endedAtMs = atMs;
    state.allowed = allowedNow;
    this.#surge.set(uid, state);
    return state;
  }
}

/**
 * Whether a node's two pods are the surge pair the switch left behind:
 * within the grace, and neither created after the in-flight window.
 */
const inSurgeEnd = (
  surge: SurgeState,
  pods: readonly Pod[],
  atMs: number
): boolean => {
  const ended = surge.endedAtMs;
  if (ended === undefined || atMs - ended >= SURGE_END_GRACE_MS) return false;
  // creationTimestamp is truncated to the second, so "at or before".
  return pods.every(
    (p) =>
      Date.parse(p.metadata.creationTimestamp ?? '') <=
      ended + SURGE_END_IN_FLIGHT_MS
  );
};

const describePod = (pod: Pod): string =>
  `${pod.metadata.name} (created ${pod.metadata.creationTimestamp ?? '?'})`;
