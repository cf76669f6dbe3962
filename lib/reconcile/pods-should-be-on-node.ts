/**
 * Ports `podsShouldBeOnNode`, `getUnscheduledPodsWithoutNode`,
 * `failedPodsBackoffKey` and the loop of `manage`
 * (pkg/controller/daemon/daemon_controller.go), returning a plan instead of
 * acting: upstream's one impure spot (backoff mutation, events, requeue) is
 * data here, applied by the orchestrator.
 *
 * Assumptions: `nodeToDaemonPods` holds claimed pods without deleted terminal
 * ones; backoff entries for every failed pod's key are preloaded.
 * Deviation: a never-bound pod on a node that must get no new one is deleted
 * (`withoutNeverBound`).
 * Invariants: without surge at most one non-terminating pod stays per node
 * (oldest bound pod kept); with surge at most one old and one new; a node
 * whose only pod is terminating gets no new pod unless surge is allowed;
 * failed pods are deleted at most once per backoff period.
 */

import { getNodesNeedingPods } from './advanced/get-nodes-needing-pods.js';
import {
  getPartition,
  isDaemonSetCreationProgressively,
  isPreparingDelete,
} from './advanced/rollout-controls.js';
import {
  type BackoffEntry,
  FAILED_POD_BACKOFF,
  isInBackOffSinceUpdate,
  nextBackoff,
} from './backoff-policy.js';
import { EventReason, type PlannedEvent } from './events.js';
import { ADVANCED_DAEMON_SET, kindOf } from './k8s/daemon-set-kind.js';
import { isDeleting, nameOf, uidOf } from './k8s/meta.js';
import {
  isPodAvailable,
  isPodReady,
  podName,
  sortByCreationTimestampAndPhase,
} from './k8s/pod-util.js';
import type { DaemonSet, Node, Pod } from './k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from './k8s/types.js';
import { daemonPlacement, type NodePlacement } from './node-should-run.js';
import { allowsSurge } from './update-budget.js';
import { findUpdatedPodsOnNode } from './updated-pods.js';

/** What a sync should create, delete, record and remember. */
export interface ManagePlan {
  nodesNeedingDaemonPods: string[];
  podsToDelete: string[];
  events: PlannedEvent[];
  backoffUpdates: { key: string; entry: BackoffEntry }[];
  /** Shortest requeue any node asked for (failed-pod backoff). */
  requeueAfterMs?: number;
  /** Nodes that should run a daemon pod (the live desired count). */
  desiredNumberScheduled: number;
}

/** Inputs shared by every node of one `manage` pass. */
export interface ManageInput {
  ds: DaemonSet;
  hash: string;
  nodeToDaemonPods: ReadonlyMap<string, readonly Pod[]>;
  nowMs: number;
  /** Preloaded failed-pod backoff entries by key. */
  backoff: ReadonlyMap<string, BackoffEntry>;
  /** The sync's placement judge (default: `daemonPlacement(ds)`). */
  placement?: NodePlacement;
}

/** Returns upstream's failed-pod backoff key `<dsUID>/<observedGen>/<node>`. */
export const failedPodsBackoffKey = (ds: DaemonSet, nodeName: string): string =>
  `${uidOf(ds)}/${ds.status?.observedGeneration ?? 0}/${nodeName}`;

const emptyPlan = (): ManagePlan => ({
  nodesNeedingDaemonPods: [],
  podsToDelete: [],
  events: [],
  backoffUpdates: [],
  desiredNumberScheduled: 0,
});

const mergeRequeue = (plan: ManagePlan, ms: number): void => {
  plan.requeueAfterMs = Math.min(plan.requeueAfterMs ?? ms, ms);
};

/** Sorts out terminal pods and returns the ones still running. */
const handleTerminalPods = (
  node: Node,
  pods: readonly Pod[],
  input: ManageInput,
  plan: ManagePlan
): Pod[] => {
  const { ds, nowMs } = input;
  const nodeName = nameOf(node);
  const running: Pod[] = [];
  for (const pod of pods) {
    if (isDeleting(pod)) continue;
    if (isPreparingDelete(pod) && kindOf(ds) === ADVANCED_DAEMON_SET) {
      // Kruise: a pod a preDelete hook holds is on its way out; every sync
      // asks for its delete again until the hook lets it go.
      plan.podsToDelete.push(podName(pod));
      continue;
    }
    const where = `${pod.metadata?.namespace}/${podName(pod)} on node ${nodeName}`;
    if (pod.status?.phase === 'Failed') {
      const key = failedPodsBackoffKey(ds, nodeName);
      // A second failed pod on the node sees the entry the first one bumped.
      const entry =
        plan.backoffUpdates.findLast((u) => u.key === key)?.entry ??
        input.backoff.get(key);
      if (entry && isInBackOffSinceUpdate(entry, nowMs, FAILED_POD_BACKOFF)) {
        // upstream enqueueDaemonSetAfter(ds, failedPodsBackoff.Get(key))
        mergeRequeue(plan, entry.delayMs);
        continue;
      }
      const next = nextBackoff(entry, nowMs, FAILED_POD_BACKOFF);
      plan.backoffUpdates.push({ key, entry: next });
      plan.events.push({
        type: 'Warning',
        reason: EventReason.FailedDaemonPod,
        message: `Found failed daemon pod ${where}, will try to kill it`,
      });
      plan.podsToDelete.push(podName(pod));
    } else if (pod.status?.phase === 'Succeeded') {
      plan.events.push({
        type: 'Normal',
        reason: EventReason.SucceededDaemonPod,
        message: `Found succeeded daemon pod ${where}, will try to delete it`,
      });
      plan.podsToDelete.push(podName(pod));
    } else {
      running.push(pod);
    }
  }
  return running;
};

/** Keeps the oldest old and oldest new pod of a surging node; plans the rest. */
const pruneSurgePods = (
  running: readonly Pod[],
  input: ManageInput,
  plan: ManagePlan
): void => {
  let oldestNew: Pod | undefined;
  let oldestOld: Pod | undefined;
  for (const pod of sortByCreationTimestampAndPhase(running)) {
    const isNew =
      pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] === input.hash;
    if (isNew && oldestNew === undefined) oldestNew = pod;
    else if (!isNew && oldestOld === undefined) oldestOld = pod;
    else plan.podsToDelete.push(podName(pod));
  }
  if (oldestNew === undefined || oldestOld === undefined) return;
  const minReady = input.ds.spec?.minReadySeconds ?? 0;
  if (
    !isPodReady(oldestOld) ||
    isPodAvailable(oldestNew, minReady, input.nowMs)
  ) {
    plan.podsToDelete.push(podName(oldestOld));
  }
};

/**
 * Returns, for one node, whether it needs a daemon pod and which of its pods
 * to delete (upstream `podsShouldBeOnNode`).
 */
export const podsShouldBeOnNode = (
  node: Node,
  input: ManageInput
): ManagePlan => {
  const plan = emptyPlan();
  const nodeName = nameOf(node);
  const placement = input.placement ?? daemonPlacement(input.ds);
  const { shouldRun, shouldContinueRunning } = placement(node);
  // The index holds no empty lists: no entry is upstream's `!exists`.
  const daemonPods = input.nodeToDaemonPods.get(nodeName) ?? [];
  if (shouldRun) plan.desiredNumberScheduled = 1;
  if (shouldRun && daemonPods.length === 0) {
    plan.nodesNeedingDaemonPods.push(nodeName);
  } else if (shouldContinueRunning) {
    const pods = shouldRun ? daemonPods : withoutNeverBound(daemonPods, plan);
    const running = handleTerminalPods(node, pods, input, plan);
    if (!allowsSurge(input.ds)) {
      // Without surge keep the oldest; a node with only terminating pods
      // waits for them to go (DaemonSet "respects termination").
      for (const pod of sortByCreationTimestampAndPhase(running).slice(1)) {
        plan.podsToDelete.push(podName(pod));
      }
    } else if (running.length === 0) {
      if (shouldRun) plan.nodesNeedingDaemonPods.push(nodeName);
    } else if (running.length > 1) {
      pruneSurgePods(running, input, plan);
    }
  } else {
    for (const pod of daemonPods) {
      if (!isDeleting(pod)) plan.podsToDelete.push(podName(pod));
    }
  }
  return plan;
};

/**
 * Deletes the pods of a node that may keep its daemon pod but must get no
 * new one (an untolerated NoSchedule taint) that the scheduler never bound:
 * it never will, so they have nothing to continue, and kept they would count
 * as unavailable and hold a rolling update forever. Upstream keeps them
 * (a pod created from a node list read just before the taint stays Pending
 * and the rollout never finishes). Returns the rest.
 */
const withoutNeverBound = (pods: readonly Pod[], plan: ManagePlan): Pod[] =>
  pods.filter((pod) => {
    const neverBound = (pod.spec?.nodeName ?? '') === '' && !isDeleting(pod);
    if (neverBound) plan.podsToDelete.push(podName(pod));
    return !neverBound;
  });

/**
 * Returns unbound pods pinned to nodes that no longer exist: they can neither
 * be scheduled nor be collected by PodGC (upstream
 * `getUnscheduledPodsWithoutNode`).
 */
export const getUnscheduledPodsWithoutNode = (
  nodes: readonly Node[],
  nodeToDaemonPods: ReadonlyMap<string, readonly Pod[]>
): string[] => {
  const known = new Set(nodes.map(nameOf));
  const result: string[] = [];
  for (const [nodeName, pods] of nodeToDaemonPods) {
    if (known.has(nodeName)) continue;
    for (const pod of pods) {
      if ((pod.spec?.nodeName ?? '') === '') result.push(podName(pod));
    }
  }
  return result;
};

/** Returns the whole `manage` plan over every node (upstream `manage`). */
export const planManage = (
  nodes: readonly Node[],
  input: ManageInput
): ManagePlan => {
  const plan = emptyPlan();
  const judged = {
    ...input,
    placement: input.placement ?? daemonPlacement(input.ds),
  };
  for (const node of nodes) {
    const nodePlan = podsShouldBeOnNode(node, judged);
    plan.nodesNeedingDaemonPods.push(...nodePlan.nodesNeedingDaemonPods);
    plan.podsToDelete.push(...nodePlan.podsToDelete);
    plan.events.push(...nodePlan.events);
    plan.backoffUpdates.push(...nodePlan.backoffUpdates);
    plan.desiredNumberScheduled += nodePlan.desiredNumberScheduled;
    if (nodePlan.requeueAfterMs !== undefined) {
      mergeRequeue(plan, nodePlan.requeueAfterMs);
    }
  }
  plan.podsToDelete.push(
    ...getUnscheduledPodsWithoutNode(nodes, input.nodeToDaemonPods)
  );
  plan.nodesNeedingDaemonPods = gateCreationByPartition(
    nodes,
    input,
    plan.desiredNumberScheduled,
    plan.nodesNeedingDaemonPods
  );
  return plan;
};

/**
 * Returns the nodes that may get a pod now: with the own kind's
 * `partitionedScaling` and a non-zero partition, Kruise's progressive
 * creation (`manage` + GetNodesNeedingPods); otherwise all of them.
 */
const gateCreationByPartition = (
  nodes: readonly Node[],
  input: ManageInput,
  desired: number,
  needing: string[]
): string[] => {
  const { ds, hash, nodeToDaemonPods } = input;
  if (!isDaemonSetCreationProgressively(ds)) return needing;
  const partition = getPartition(ds, desired);
  if (partition === undefined || partition === 0) return needing;
  const newPods = nodes.filter((node) => {
    const pods = nodeToDaemonPods.get(nameOf(node)) ?? [];
    const found = findUpdatedPodsOnNode(ds, pods, hash);
    return found.ok && found.newPod !== undefined;
  }).length;
  return getNodesNeedingPods(newPods, desired, partition, true, needing);
};
