/**
 * Ports the node event handling of the DaemonSet controller
 * (pkg/controller/daemon/daemon_controller.go, nodeUpdateQueue era):
 * `addNode`, `updateNode`, `shouldIgnoreNodeUpdate` and the enqueue rule of
 * `syncNodeUpdate`. Upstream puts the node name on a second queue and decides
 * later; the bridge already holds the node, so both steps happen here, at
 * once, and return what the bridge must do (see `event-keys.ts`).
 *
 * Assumptions: `view.daemonSets` is the cluster's current DaemonSet list;
 * `podsOnNode` holds the cluster's pods bound to this node (upstream's
 * `spec.nodeName` index; pods bound elsewhere are ignored).
 * Invariants: a node update changing neither labels nor taints wakes nobody;
 * a DaemonSet is woken iff `(shouldRun && !scheduled) ||
 * (!shouldContinueRunning && scheduled) ||
 * (scheduled && status.numberMisscheduled > 0)`, or its spec cannot be
 * judged (`enqueueWaking`); node events never change
 * expectations. Node deletes have no handler upstream either: the next sync
 * of each DaemonSet notices the node is gone.
 */
import { getControllerOf } from '../k8s/controller-ref.js';
import type { DaemonSet, Node, Pod, Taint } from '../k8s/types.js';
import { nodeShouldRunDaemonPod } from '../node-should-run.js';
import {
  type ClusterView,
  type EventKeys,
  enqueueWaking,
  namespaceOf,
  noEventKeys,
  sameLabels,
} from './common.js';

const sameTime = (
  a: string | null | undefined,
  b: string | null | undefined
): boolean =>
  (a ?? undefined) === (b ?? undefined) ||
  (a != null && b != null && Date.parse(a) === Date.parse(b));

const sameTaint = (a: Taint, b: Taint): boolean =>
  a.key === b.key &&
  (a.value ?? '') === (b.value ?? '') &&
  a.effect === b.effect &&
  sameTime(a.timeAdded, b.timeAdded);

const sameTaints = (
  a: readonly Taint[] | undefined,
  b: readonly Taint[] | undefined
): boolean => {
  const left = a ?? [];
  const right = b ?? [];
  return (
    left.length === right.length &&
    left.every((taint, i) => {
      const other = right[i];
      return other !== undefined && sameTaint(taint, other);
    })
  );
};

/**
 * Returns whether a node update cannot change any DaemonSet's placement:
 * labels and taints are semantically equal (absent = empty, times compared
 * as instants; upstream `apiequality.Semantic.DeepEqual`). Conditions,
 * allocatable and the rest are ignored (`shouldIgnoreNodeUpdate`).
 */
export const shouldIgnoreNodeUpdate = (oldNode: Node, curNode: Node): boolean =>
  sameLabels(oldNode.metadata?.labels, curNode.metadata?.labels) &&
  sameTaints(oldNode.spec?.taints, curNode.spec?.taints);

const ownerId = (namespace: string, name: string, uid: string): string =>
  JSON.stringify([namespace, name, uid]);

const daemonSetOwnersOnNode = (
  view: ClusterView,
  nodeName: string,
  podsOnNode: readonly Pod[]
): Set<string> => {
  const owners = new Set<string>();
  for (const pod of podsOnNode) {
    if (pod.spec?.nodeName !== nodeName) continue;
    const ref = getControllerOf(pod);
    if (ref?.kind !== view.ownerKind) continue;
    owners.add(ownerId(namespaceOf(pod), ref.name, ref.uid));
  }
  return owners;
};

const isScheduled = (owners: Set<string>, ds: DaemonSet): boolean =>
  owners.has(
    ownerId(namespaceOf(ds), ds.metadata?.name ?? '', ds.metadata?.uid ?? '')
  );

/**
 * Returns the DaemonSets a node change concerns (the enqueue rule of
 * `syncNodeUpdate`): those that should now run a pod there but have none,
 * those that have a pod there that may no longer run, and those with a pod
 * there while reporting misscheduled pods (the count may have to drop).
 * "Has a pod there" means a pod bound to the node whose controller reference
 * names the DaemonSet's namespace, name and UID.
 */
export const syncNodeUpdate = (
  view: ClusterView,
  node: Node,
  podsOnNode: readonly Pod[]
): EventKeys => {
  const owners = daemonSetOwnersOnNode(
    view,
    node.metadata?.name ?? '',
    podsOnNode
  );
  return enqueueWaking(view, (ds) => {
    const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(
      node,
      ds
    );
    const scheduled = isScheduled(owners, ds);
    const misscheduled = (ds.status?.numberMisscheduled ?? 0) > 0;
    return (
      (shouldRun && !scheduled) ||
      (!shouldContinueRunning && scheduled) ||
      (scheduled && misscheduled)
    );
  });
};

/**
 * Returns what a node add means: the `syncNodeUpdate` rule applied to it
 * (`addNode` + `syncNodeUpdate`). A new node has no pods, so this wakes the
 * DaemonSets that should run there; on a relist (every node is "added"
 * again) the bound pods keep settled DaemonSets asleep.
 */
export const addNode = (
  view: ClusterView,
  node: Node,
  podsOnNode: readonly Pod[]
): EventKeys => syncNodeUpdate(view, node, podsOnNode);

/**
 * Returns what a node update means: nothing unless labels or taints changed
 * (`shouldIgnoreNodeUpdate`), else the `syncNodeUpdate` rule for the current
 * node (`updateNode` + `syncNodeUpdate`).
 */
export const updateNode = (
  view: ClusterView,
  oldNode: Node,
  curNode: Node,
  podsOnNode: readonly Pod[]
): EventKeys =>
  shouldIgnoreNodeUpdate(oldNode, curNode)
    ? noEventKeys()
    : syncNodeUpdate(view, curNode, podsOnNode);
