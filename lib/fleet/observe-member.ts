/**
 * What a member DaemonSet's sync reports to its fleet rollout, from the
 * nodes and pods it read: how many nodes should run a pod, how many run an
 * available pod of the current revision, and which of those pods broke a
 * health gate. A broken pod on a node that is NotReady or cordoned is
 * reported apart (excluded): the rollout did not break that node.
 */
import type { MemberHealth } from '../ports/fleet-rollouts.js';
import { labelOf, nameOf } from '../reconcile/k8s/meta.js';
import { isPodAvailable } from '../reconcile/k8s/pod-util.js';
import type { Node, Pod } from '../reconcile/k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../reconcile/k8s/types.js';
import type { NodePlacement } from '../reconcile/node-should-run.js';
import type { MemberObservation } from './fleet-rollout-state.js';

/** What observing one member takes. */
export interface MemberView {
  nodes: readonly Node[];
  /** The DaemonSet's pods by node name. */
  byNode: ReadonlyMap<string, readonly Pod[]>;
  placement: NodePlacement;
  /** The current template's revision hash. */
  revision: string;
  minReadySeconds: number;
  health: MemberHealth;
  nowMs: number;
}

/**
 * The taints Kubernetes puts on a node that is NotReady, unreachable or
 * cordoned (node lifecycle controller, TaintNodesByCondition). The
 * product's reads keep a node's taints but not its status, so the taints
 * tell a broken node.
 */
const BROKEN_NODE_TAINTS = [
  'node.kubernetes.io/not-ready',
  'node.kubernetes.io/unreachable',
  'node.kubernetes.io/unschedulable',
];

const nodeHealthy = (node: Node): boolean => {
  const conditions = node.status?.conditions;
  return (
    node.spec?.unschedulable !== true &&
    !(node.spec?.taints ?? []).some((t) =>
      BROKEN_NODE_TAINTS.includes(t.key)
    ) &&
    // Read without its status (the cache): its taints alone tell.
    (conditions === undefined ||
      conditions.some((c) => c.type === 'Ready' && c.status === 'True'))
  );
};

/** Returns whether a pod broke the restart or waiting-reason gate. */
export const brokeHealthGate = (pod: Pod, health: MemberHealth): boolean =>
  (pod.status?.containerStatuses ?? []).some(
    (c) =>
      c.restartCount > health.maxRestartsPerPod ||
      health.failOnWaitingReasons.includes(c.state?.waiting?.reason ?? '')
  );

/** Returns the member's observation (reachable: its sync ran). */
export const observeMember = (view: MemberView): MemberObservation => {
  let desired = 0;
  let updatedAvailable = 0;
  let failedNodes = 0;
  let excludedNodes = 0;
  for (const node of view.nodes) {
    if (!view.placement(node).shouldRun) continue;
    desired++;
    const current = (view.byNode.get(nameOf(node)) ?? []).filter(
      (p) => labelOf(p, CONTROLLER_REVISION_HASH_LABEL) === view.revision
    );
    if (
      current.some((p) => isPodAvailable(p, view.minReadySeconds, view.nowMs))
    ) {
      updatedAvailable++;
    }
    if (current.some((p) => brokeHealthGate(p, view.health))) {
      if (nodeHealthy(node)) failedNodes++;
      else excludedNodes++;
    }
  }
  return {
    observedAtMs: view.nowMs,
    reachable: true,
    revision: view.revision,
    desired,
    updatedAvailable,
    failedNodes,
    excludedNodes,
  };
};
