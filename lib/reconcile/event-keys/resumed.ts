/**
 * The event→key mapping for a bridge that resumes watches from stored
 * resourceVersions and so holds no copy of the objects as they were before an
 * update (upstream's handlers get `old` from the informer cache). It keeps
 * upstream's handlers and supplies the least it can know about `old`:
 * - pods and revisions: an unknown old object, assumed to have had other
 *   labels; of a pod the bridge saw before in this run, the controller and
 *   readiness it had then (else the same controller, not Ready) — every
 *   update wakes at least what upstream would wake, never less;
 * - nodes: the node index the bridge keeps (labels and taints per node, the
 *   only node fields placement reads), so a node update wakes exactly the
 *   DaemonSets whose placement on that node changes, decided by
 *   `nodeShouldRunDaemonPod`.
 *
 * Invariants: every key upstream's handler would enqueue for the same event
 * is enqueued; a node update that changes neither labels nor taints wakes
 * nobody.
 */

import { nodeShouldUpdateBySelector } from '../advanced/rollout-controls.js';
import { getControllerOf } from '../k8s/controller-ref.js';
import { availableAtMs, isPodReady } from '../k8s/pod-util.js';
import type {
  ControllerRevision,
  Node,
  OwnerReference,
  Pod,
  Taint,
} from '../k8s/types.js';
import { daemonPlacement } from '../node-should-run.js';
import { rolloutView } from '../on-delete/rollout-annotation.js';
import {
  type ClusterView,
  type EventKeys,
  enqueueWaking,
  getDaemonSetsForObject,
  noEventKeys,
} from './common.js';
import { updateHistory } from './index.js';
import { shouldIgnoreNodeUpdate, syncNodeUpdate } from './nodes.js';
import { updatePod } from './pods.js';

/** What placement reads of a node: its labels and taints. */
export interface NodeFacts {
  labels?: Record<string, string>;
  taints?: Taint[];
}

/** Returns the facts of a node that placement depends on. */
export const nodeFactsOf = (node: Node): NodeFacts => ({
  ...(node.metadata?.labels ? { labels: node.metadata.labels } : {}),
  ...(node.spec?.taints?.length ? { taints: node.spec.taints } : {}),
});

/** Returns a node carrying only `facts`, enough for the placement predicates. */
export const nodeOfFacts = (name: string, facts: NodeFacts): Node => ({
  metadata: { name, ...(facts.labels ? { labels: facts.labels } : {}) },
  spec: facts.taints ? { taints: facts.taints } : {},
});

/** An old object nobody kept: other labels, same controller, not Ready. */
const unknownOld = <T extends Pod | ControllerRevision>(cur: T): T => ({
  ...cur,
  metadata: {
    ...cur.metadata,
    resourceVersion: '',
    labels: { 'dsr.internal/unknown-old': '' },
  },
  ...('status' in cur ? { status: {} } : {}),
});

/** What the bridge remembers of a pod from its last event in this run. */
export interface PodMemo {
  /** Its controller reference (null: none). */
  owner: OwnerReference | null;
  /** Whether it was Ready. */
  ready: boolean;
}

/** Returns the memo of a pod as it is now. */
export const podMemoOf = (pod: Pod): PodMemo => ({
  owner: getControllerOf(pod) ?? null,
  ready: isPodReady(pod),
});

/**
 * Returns whether a memo of `pod` can change what its updates wake: its
 * controller is of the owned kind, or it is an orphan some DaemonSet
 * selects (and may adopt). A pod of another controller (a ReplicaSet, a
 * Job) wakes nobody either way, so the bridge keeps no memo of it.
 */
export const shouldRememberPod = (view: ClusterView, pod: Pod): boolean => {
  const ref = getControllerOf(pod);
  if (ref !== undefined) return ref.kind === view.ownerKind;
  return getDaemonSetsForObject(view, pod).length > 0;
};

/**
 * Returns what a pod update means when the old pod is unknown; `last` is
 * what the bridge saw of it before (if it did), so a controller change
 * still wakes the old owner (upstream `updatePod`), and an update of a pod
 * that was already Ready arms no minReadySeconds timer. Given `nowMs`, a
 * pod Ready for longer than the timer's wait arms none either: it is
 * available already, and the sync queued with the update counts it.
 */
export const updatePodResumed = (
  view: ClusterView,
  cur: Pod,
  last?: PodMemo,
  nowMs?: number
): EventKeys => {
  const old = unknownOld(cur);
  if (last !== undefined && old.metadata) {
    old.metadata.ownerReferences = last.owner === null ? [] : [last.owner];
    if (last.ready) {
      old.status = { conditions: [{ type: 'Ready', status: 'True' }] };
    }
  }
  const out = updatePod(view, old, cur);
  const readySinceMs = availableAtMs(cur, 0);
  if (nowMs === undefined || readySinceMs === undefined) return out;
  return {
    ...out,
    delayedKeys: out.delayedKeys.filter(
      (d) => readySinceMs + d.afterMs > nowMs
    ),
  };
};

/** Returns what a revision update means when the old revision is unknown. */
export const updateHistoryResumed = (
  view: ClusterView,
  cur: ControllerRevision
): EventKeys => updateHistory(view, unknownOld(cur), cur);

/**
 * Returns what a node add or update means, given the node's facts as the
 * index held them (undefined: a node the index has not seen, handled as an
 * add). Changed labels or taints wake each DaemonSet whose `shouldRun` or
 * `shouldContinueRunning` on this node differs before and after, and each
 * whose spec cannot be judged (`enqueueWaking`).
 */
export const updateNodeResumed = (
  view: ClusterView,
  old: NodeFacts | undefined,
  cur: Node
): EventKeys => {
  if (old === undefined) return syncNodeUpdate(view, cur, []);
  const oldNode = nodeOfFacts(cur.metadata?.name ?? '', old);
  if (shouldIgnoreNodeUpdate(oldNode, cur)) return noEventKeys();
  return enqueueWaking(view, (ds) => {
    const fits = daemonPlacement(ds);
    const before = fits(oldNode);
    const after = fits(cur);
    if (
      before.shouldRun !== after.shouldRun ||
      before.shouldContinueRunning !== after.shouldContinueRunning
    ) {
      return true;
    }
    // The canary selector (Kruise PR #920), of either kind.
    const rolling = rolloutView(ds);
    return (
      nodeShouldUpdateBySelector(oldNode, rolling) !==
      nodeShouldUpdateBySelector(cur, rolling)
    );
  });
};
