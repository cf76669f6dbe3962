/**
 * Ports the rolling update planner of pkg/controller/daemon/update.go
 * (`rollingUpdate`; its budgets, `updatedDesiredNodeCounts`, are in
 * update-budget.ts, and `findUpdatedPodsOnNode` in updated-pods.ts): the
 * no-surge and the surge branch over one pass's budget.
 *
 * Assumptions: runs only with satisfied expectations after `manage`; the
 * manage loop prunes duplicates, creates missing pods and handles failed pods.
 * Invariants (no surge): never more than maxUnavailable nodes without an
 * available pod because of this planner; unavailable old pods are replaced
 * regardless of the budget. (surge): at most maxSurge extra pods for
 * available old pods; an old pod is deleted only once its node's new pod is
 * available; pods on nodes that should no longer run are deleted only while
 * availability stays above desired.
 *
 * Node order: upstream's is a Go map's (random); ours the node list's, then
 * nodes missing from it.
 */
import { SyncError } from '../errors.js';
import { filterDaemonPodsToUpdate } from './advanced/filter-daemon-pods-node-to-update.js';
import { isDaemonPodAvailable } from './advanced/pod-readiness.js';
import { isPreparingDelete } from './advanced/rollout-controls.js';
import { nameOf } from './k8s/meta.js';
import { availableAtMs, podName } from './k8s/pod-util.js';
import type { DaemonSet, Node, Pod } from './k8s/types.js';
import { daemonPlacement, type NodePlacement } from './node-should-run.js';
import {
  type UpdateBudget,
  updatedDesiredNodeCounts,
} from './update-budget.js';
import { findUpdatedPodsOnNode } from './updated-pods.js';

/** What one rolling update pass deletes and creates. */
export interface RollingUpdatePlan {
  podsToDelete: string[];
  nodesNeedingDaemonPods: string[];
  /** Nodes that should run a daemon pod (scales the own kind's burst). */
  desiredNumberScheduled: number;
  /** The pass's budgets and what it found using them (plan, explain). */
  budget: UpdateBudgetUse;
  /** When a new pod waited for minReadySeconds becomes available (surge). */
  requeueAfterMs?: number;
}

/** How much of the update budget a pass found in use. */
export interface UpdateBudgetUse {
  maxUnavailable: number;
  maxSurge: number;
  /**
   * What the pass counted against its limit: unavailable nodes without
   * surge, surging nodes with it.
   */
  inUse: number;
}

const clamp = (n: number, max: number): number => Math.min(Math.max(n, 0), max);

const isNilOrPreDeleting = (pod: Pod | undefined): boolean =>
  pod === undefined || isPreparingDelete(pod);

const planWithoutSurge = (
  ds: DaemonSet,
  budget: UpdateBudget,
  hash: string,
  nowMs: number
): RollingUpdatePlan => {
  const minReady = ds.spec?.minReadySeconds ?? 0;
  let numUnavailable = 0;
  const allowedReplacementPods: string[] = [];
  const candidatePodsToDelete: string[] = [];
  for (const pods of budget.nodeToDaemonPods.values()) {
    const { newPod, oldPod, ok } = findUpdatedPodsOnNode(ds, pods, hash);
    // A pod a preDelete hook holds counts as gone (Kruise).
    if (!ok || isNilOrPreDeleting(oldPod) === isNilOrPreDeleting(newPod)) {
      // manage() prunes, creates or deletes here; count it as unavailable.
      numUnavailable++;
    } else if (newPod !== undefined) {
      if (!isDaemonPodAvailable(newPod, minReady, nowMs)) numUnavailable++;
      if (isPreparingDelete(newPod)) numUnavailable++;
    } else {
      // Only an old pod: a candidate for replacement.
      const old = oldPod as Pod;
      if (!isDaemonPodAvailable(old, minReady, nowMs)) {
        allowedReplacementPods.push(podName(old));
        numUnavailable++;
      } else if (numUnavailable < budget.maxUnavailable) {
        candidatePodsToDelete.push(podName(old));
      }
    }
  }
  const remaining = clamp(
    budget.maxUnavailable - numUnavailable,
    candidatePodsToDelete.length
  );
  return {
    podsToDelete: [
      ...allowedReplacementPods,
      ...candidatePodsToDelete.slice(0, remaining),
    ],
    nodesNeedingDaemonPods: [],
    desiredNumberScheduled: budget.desiredNumberScheduled,
    budget: {
      maxUnavailable: budget.maxUnavailable,
      maxSurge: 0,
      inUse: numUnavailable,
    },
  };
};

const planWithSurge = (
  ds: DaemonSet,
  nodes: readonly Node[],
  budget: UpdateBudget,
  hash: string,
  nowMs: number,
  placement: NodePlacement
): RollingUpdatePlan => {
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const nodesByName = new Map(nodes.map((n) => [nameOf(n), n]));
  const shouldRunOn = (nodeName: string): boolean => {
    const node = nodesByName.get(nodeName);
    if (node === undefined) {
      throw new SyncError(`couldn't get node for nodeName "${nodeName}"`);
    }
    return placement(node).shouldRun;
  };
  const oldPodsToDelete: string[] = [];
  const shouldNotRunPodsToDelete: string[] = [];
  const candidateNewNodes: string[] = [];
  const allowedNewNodes: string[] = [];
  let numSurge = 0;
  let numAvailable = 0;
  // Upstream waits for the Ready event's AddAfter(minReady + 1 s), missed by a
  // clock > 1 s behind the node's: ask, by this clock, instead.
  let waitUntil = Number.POSITIVE_INFINITY;
  for (const [nodeName, pods] of budget.nodeToDaemonPods) {
    const { newPod, oldPod, ok } = findUpdatedPodsOnNode(ds, pods, hash);
    if (!ok) {
      numSurge++;
      continue;
    }
    const counted = oldPod ?? newPod;
    if (
      counted !== undefined &&
      isDaemonPodAvailable(counted, minReady, nowMs)
    ) {
      numAvailable++;
    }
    // manage() handles a node whose old pod a preDelete hook holds.
    if (oldPod === undefined || isPreparingDelete(oldPod)) continue;
    if (newPod === undefined) {
      if (!isDaemonPodAvailable(oldPod, minReady, nowMs)) {
        if (shouldRunOn(nodeName)) allowedNewNodes.push(nodeName);
        else oldPodsToDelete.push(podName(oldPod));
      } else if (!shouldRunOn(nodeName)) {
        shouldNotRunPodsToDelete.push(podName(oldPod));
      } else if (numSurge < budget.maxSurge) {
        candidateNewNodes.push(nodeName);
      }
    } else if (!isDaemonPodAvailable(newPod, minReady, nowMs)) {
      numSurge++;
      const at = availableAtMs(newPod, minReady);
      if (at !== undefined && at > nowMs) waitUntil = Math.min(waitUntil, at);
    } else {
      oldPodsToDelete.push(podName(oldPod));
    }
  }
  const remainingSurge = clamp(
    budget.maxSurge - numSurge,
    candidateNewNodes.length
  );
  // Pods on nodes that should no longer run them go only while enough others
  // stay available (kubernetes/kubernetes#113594).
  const deletable = clamp(
    numAvailable - budget.desiredNumberScheduled,
    shouldNotRunPodsToDelete.length
  );
  return {
    podsToDelete: [
      ...oldPodsToDelete,
      ...shouldNotRunPodsToDelete.slice(0, deletable),
    ],
    nodesNeedingDaemonPods: [
      ...allowedNewNodes,
      ...candidateNewNodes.slice(0, remainingSurge),
    ],
    desiredNumberScheduled: budget.desiredNumberScheduled,
    budget: {
      maxUnavailable: budget.maxUnavailable,
      maxSurge: budget.maxSurge,
      inUse: numSurge,
    },
    ...(waitUntil === Number.POSITIVE_INFINITY
      ? {}
      : { requeueAfterMs: waitUntil - nowMs }),
  };
};

/** Returns the pods to delete and nodes to surge onto (upstream `rollingUpdate`). */
export const planRollingUpdate = (
  ds: DaemonSet,
  nodes: readonly Node[],
  nodeToDaemonPods: ReadonlyMap<string, readonly Pod[]>,
  hash: string,
  nowMs: number,
  placement: NodePlacement = daemonPlacement(ds)
): RollingUpdatePlan => {
  const budget = filterDaemonPodsToUpdate(
    ds,
    nodes,
    hash,
    updatedDesiredNodeCounts(ds, nodes, nodeToDaemonPods, placement)
  );
  return budget.maxSurge === 0
    ? planWithoutSurge(ds, budget, hash, nowMs)
    : planWithSurge(ds, nodes, budget, hash, nowMs, placement);
};
