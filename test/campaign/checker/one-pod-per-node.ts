/**
 * one-daemon-pod-per-node: at every instant, each DaemonSet has at most one
 * live pod per node, or two while its spec allows surge (upstream's manage
 * loop "allows no more than two pods per node, one old, one new").
 *
 * When a spec goes from surge to no surge, the controller cannot remove the
 * extra pods in the same instant, and one already deciding with the old
 * spec may still create one. So for SURGE_END_GRACE_MS after the switch a
 * node may keep two live pods, until it has been seen going from two to one
 * (its surplus pod is gone), whichever comes first.
 */
import { type ClusterView, isLive, keyOf, podsByNode } from './cluster-view.js';
import { allowsSurge } from './rolling-budget.js';
import type { Violation } from './violation.js';

/** How long after surge is switched off two pods per node are tolerated. */
export const SURGE_END_GRACE_MS = 30_000;

interface SurgeState {
  allowed: boolean;
  endedAtMs?: number;
  /** Nodes seen with two live pods since the switch. */
  doubled: Set<string>;
  /** Of those, the nodes since seen with one: their grace is over. */
  drained: Set<string>;
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
      const inGrace =
        surge.endedAtMs !== undefined &&
        atMs - surge.endedAtMs < SURGE_END_GRACE_MS;
      const live = view.daemonPods(ds).filter(isLive);
      for (const [node, pods] of podsByNode(live)) {
        if (inGrace) trackDrain(surge, node, pods.length);
        const limit =
          surge.allowed || (inGrace && !surge.drained.has(node)) ? 2 : 1;
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
            pods.map((p) => p.metadata.name).join(', '),
        });
      }
    }
    this.#open = breaching;
    return found;
  }

  #surgeState(uid: string, allowedNow: boolean, atMs: number): SurgeState {
    const state = this.#surge.get(uid) ?? {
      allowed: allowedNow,
      doubled: new Set<string>(),
      drained: new Set<string>(),
    };
    if (state.allowed && !allowedNow) {
      state.endedAtMs = atMs;
      state.doubled.clear();
      state.drained.clear();
    }
    state.allowed = allowedNow;
    this.#surge.set(uid, state);
    return state;
  }
}

const trackDrain = (state: SurgeState, node: string, livePods: number) => {
  if (livePods >= 2) state.doubled.add(node);
  else if (state.doubled.has(node)) state.drained.add(node);
};
