/**
 * Ports the informer event handlers of the DaemonSet controller
 * (pkg/controller/daemon/daemon_controller.go): `addDaemonset`,
 * `updateDaemonset`, `deleteDaemonset`, `addHistory`, `updateHistory`,
 * `deleteHistory` and `getDaemonSetsForHistory`. Pod handlers (`addPod`,
 * `updatePod`, `deletePod`) live in `pods.ts`, node handlers
 * (`addNode`, `updateNode`, `shouldIgnoreNodeUpdate`, `syncNodeUpdate`) in
 * `nodes.ts`, shared lookups in `common.ts`, the bridge's resumed variants
 * (no old object at hand) in `resumed.ts`; this
 * module re-exports them so the watch-bridge imports one place.
 *
 * Instead of touching a workqueue and an expectations cache, every handler
 * returns {@link EventKeys}: what the bridge must do. The bridge applies
 * `dropExpectations`, then `expectations`, then sends `keys` and
 * `delayedKeys` (upstream's order: expectations change before the enqueue).
 *
 * Assumptions: `view.daemonSets` is the cluster's current DaemonSet list as
 * the bridge knows it (upstream's lister); a tombstone (delete seen only on
 * relist) is passed to the delete handler as its last known object.
 * Invariants: handlers never branch on anything but the event objects and
 * the view; a ControllerRevision never changes expectations (only pods do);
 * a deleted DaemonSet's expectations are always dropped before its key is
 * sent, so a recreated DaemonSet (new UID) starts clean.
 */
import { getControllerOf } from '../k8s/controller-ref.js';
import type { ControllerRevision, DaemonSet } from '../k8s/types.js';
import {
  type ClusterView,
  daemonSetKey,
  type EventKeys,
  enqueueKey,
  enqueueMatching,
  hasDeletionTimestamp,
  namespaceOf,
  noEventKeys,
  resolveControllerRef,
  sameControllerRef,
  sameLabels,
} from './common.js';

export type {
  ClusterView,
  DelayedKey,
  EventKeys,
  ObservedExpectation,
} from './common.js';
export {
  getDaemonSetsForObject,
  resolveControllerRef,
} from './common.js';
export {
  addNode,
  shouldIgnoreNodeUpdate,
  syncNodeUpdate,
  updateNode,
} from './nodes.js';
export {
  addPod,
  deletePod,
  ownerOutsideSelector,
  updatePod,
} from './pods.js';

/** Returns what a DaemonSet add means: sync it (`addDaemonset`). */
export const addDaemonset = (view: ClusterView, ds: DaemonSet): EventKeys =>
  enqueueKey(noEventKeys(), daemonSetKey(view, ds));

/**
 * Returns what a DaemonSet delete (or tombstone) means: drop its
 * expectations so a recreated DaemonSet starts clean, then sync the key
 * (`deleteDaemonset`).
 */
export const deleteDaemonset = (
  view: ClusterView,
  ds: DaemonSet
): EventKeys => {
  const key = daemonSetKey(view, ds);
  return { ...noEventKeys(), keys: [key], dropExpectations: [key] };
};

/**
 * Returns what a DaemonSet update means: always sync it (no generation
 * filter: resyncs and our own status writes also land here); a changed UID
 * means the old object was deleted and recreated (`updateDaemonset`).
 */
export const updateDaemonset = (
  view: ClusterView,
  oldDs: DaemonSet,
  curDs: DaemonSet
): EventKeys => {
  const out =
    oldDs.metadata?.uid !== curDs.metadata?.uid
      ? deleteDaemonset(view, oldDs)
      : noEventKeys();
  return enqueueKey(out, daemonSetKey(view, curDs));
};

/**
 * Returns what a ControllerRevision delete (or tombstone) means: sync its
 * owner, if it resolves; orphans concern nobody (`deleteHistory`).
 */
export const deleteHistory = (
  view: ClusterView,
  history: ControllerRevision
): EventKeys => {
  const ref = getControllerOf(history);
  const ds = ref && resolveControllerRef(view, namespaceOf(history), ref);
  return ds ? addDaemonset(view, ds) : noEventKeys();
};

/**
 * Returns what a ControllerRevision add means: a revision being deleted is a
 * delete; an owned one needs no sync (upstream only logs it); an orphan wakes
 * every DaemonSet selecting it, which may adopt it (`addHistory`).
 */
export const addHistory = (
  view: ClusterView,
  history: ControllerRevision
): EventKeys => {
  if (hasDeletionTimestamp(history)) return deleteHistory(view, history);
  if (getControllerOf(history) !== undefined) return noEventKeys();
  return enqueueMatching(view, history);
};

/**
 * Returns what a ControllerRevision update means: nothing for a resync (same
 * resourceVersion); the old owner when the controller reference changed; the
 * current owner if any; else, if labels or reference changed, every
 * DaemonSet selecting the orphan (`updateHistory`).
 */
export const updateHistory = (
  view: ClusterView,
  oldHistory: ControllerRevision,
  curHistory: ControllerRevision
): EventKeys => {
  if (
    curHistory.metadata?.resourceVersion ===
    oldHistory.metadata?.resourceVersion
  ) {
    return noEventKeys();
  }
  const out = noEventKeys();
  const curRef = getControllerOf(curHistory);
  const oldRef = getControllerOf(oldHistory);
  const refChanged = !sameControllerRef(curRef, oldRef);
  if (refChanged && oldRef !== undefined) {
    const old = resolveControllerRef(view, namespaceOf(oldHistory), oldRef);
    if (old) enqueueKey(out, daemonSetKey(view, old));
  }
  if (curRef !== undefined) {
    const cur = resolveControllerRef(view, namespaceOf(curHistory), curRef);
    return cur ? enqueueKey(out, daemonSetKey(view, cur)) : out;
  }
  const labelsChanged = !sameLabels(
    curHistory.metadata?.labels,
    oldHistory.metadata?.labels
  );
  if (!labelsChanged && !refChanged) return out;
  for (const key of enqueueMatching(view, curHistory).keys) {
    enqueueKey(out, key);
  }
  return out;
};
