/**
 * Ports the pod event handlers of the DaemonSet controller
 * (pkg/controller/daemon/daemon_controller.go): `addPod`, `updatePod`,
 * `deletePod` and `getDaemonSetsForPod`, returning what the watch-bridge must
 * do (see `event-keys.ts`) instead of acting.
 *
 * Assumptions: `view.daemonSets` is the cluster's current DaemonSet list; a
 * pod tombstone is passed to `deletePod` as the pod's last known state.
 * Invariants: only pods whose controller reference resolves (kind, namespace,
 * name and UID) change expectations, and only for that owner; a pod that is
 * being deleted is never a creation; orphans never change expectations; an
 * update with an unchanged resourceVersion (resync) does nothing.
 */
import { getControllerOf } from '../k8s/controller-ref.js';
import { isPodReady } from '../k8s/pod-util.js';
import type { DaemonSet, Pod } from '../k8s/types.js';
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
  selectsSafely,
} from './common.js';

/**
 * Extra delay on the minReadySeconds requeue, so the pod is surely available
 * when the sync runs (upstream adds 1 s against millisecond skew,
 * kubernetes/kubernetes#39785).
 */
export const MIN_READY_REQUEUE_SKEW_MS = 1_000;

/**
 * Returns what a pod delete (or tombstone, or graceful-deletion start) means:
 * a deletion observed for its resolved owner, and a sync of that owner;
 * orphans concern nobody (`deletePod`).
 */
export const deletePod = (view: ClusterView, pod: Pod): EventKeys => {
  const ref = getControllerOf(pod);
  const ds = ref && resolveControllerRef(view, namespaceOf(pod), ref);
  if (!ds) return noEventKeys();
  const key = daemonSetKey(view, ds);
  return {
    ...noEventKeys(),
    keys: [key],
    expectations: [{ key, observed: 'deletion' }],
  };
};

/**
 * Returns what a pod add means: a pod already being deleted is a delete (a
 * restart may first see it in that state); an owned pod is a creation
 * observed for its owner plus a sync of it; an orphan wakes every DaemonSet
 * selecting it, which may adopt it (`addPod`).
 */
export const addPod = (view: ClusterView, pod: Pod): EventKeys => {
  if (hasDeletionTimestamp(pod)) return deletePod(view, pod);
  const ref = getControllerOf(pod);
  if (ref === undefined) return enqueueMatching(view, pod);
  const ds = resolveControllerRef(view, namespaceOf(pod), ref);
  if (!ds) return noEventKeys();
  const key = daemonSetKey(view, ds);
  return {
    ...noEventKeys(),
    keys: [key],
    expectations: [{ key, observed: 'creation' }],
  };
};

/**
 * Returns what a pod update means (`updatePod`):
 * - nothing for a resync (same resourceVersion);
 * - a delete once a deletion timestamp appears, so a replacement is planned
 *   without waiting for the kubelet;
 * - a sync of the old owner when the controller reference changed;
 * - for an owned pod, a sync of its owner, plus a delayed sync after
 *   `minReadySeconds + 1 s` when the pod just turned Ready and
 *   `minReadySeconds > 0` (it becomes available then; kubernetes/kubernetes#38076);
 * - for an orphan whose labels or reference changed, every DaemonSet selecting it.
 */
export const updatePod = (
  view: ClusterView,
  oldPod: Pod,
  curPod: Pod
): EventKeys => {
  if (curPod.metadata?.resourceVersion === oldPod.metadata?.resourceVersion) {
    return noEventKeys();
  }
  if (hasDeletionTimestamp(curPod)) return deletePod(view, curPod);
  const out = noEventKeys();
  const curRef = getControllerOf(curPod);
  const oldRef = getControllerOf(oldPod);
  const refChanged = !sameControllerRef(curRef, oldRef);
  if (refChanged && oldRef !== undefined) {
    const old = resolveControllerRef(view, namespaceOf(oldPod), oldRef);
    if (old) enqueueKey(out, daemonSetKey(view, old));
  }
  if (curRef !== undefined) {
    const ds = resolveControllerRef(view, namespaceOf(curPod), curRef);
    if (!ds) return out;
    const key = daemonSetKey(view, ds);
    enqueueKey(out, key);
    const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
    if (!isPodReady(oldPod) && isPodReady(curPod) && minReadySeconds > 0) {
      out.delayedKeys.push({
        key,
        afterMs: minReadySeconds * 1_000 + MIN_READY_REQUEUE_SKEW_MS,
      });
    }
    return out;
  }
  const labelsChanged = !sameLabels(
    curPod.metadata?.labels,
    oldPod.metadata?.labels
  );
  if (!labelsChanged && !refChanged) return out;
  for (const key of enqueueMatching(view, curPod).keys) enqueueKey(out, key);
  return out;
};

/**
 * Returns the DaemonSet that controls `pod` although its selector no longer
 * matches the pod's labels (someone relabelled it), unless it is being
 * deleted: upstream's sync finds such a pod in its namespace-wide list and
 * releases it; a sync that reads pods by selector must be told of it.
 */
export const ownerOutsideSelector = (
  view: ClusterView,
  pod: Pod
): DaemonSet | undefined => {
  const ref = getControllerOf(pod);
  if (ref === undefined || hasDeletionTimestamp(pod)) return undefined;
  const ds = resolveControllerRef(view, namespaceOf(pod), ref);
  if (ds === undefined) return undefined;
  // An invalid selector selects nothing: the pod is outside it, and the
  // owner's sync, told of it, reports the selector instead of throwing here.
  return selectsSafely(ds.spec?.selector, pod.metadata?.labels ?? {})
    ? undefined
    : ds;
};
