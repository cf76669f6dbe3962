/**
 * Ports `NodeShouldRunDaemonPod`, `predicates` and `NewPod`
 * (pkg/controller/daemon/daemon_controller.go).
 *
 * Invariants: only the template's nodeName, nodeSelector, required node
 * affinity and NoSchedule/NoExecute taints decide; resources, host ports,
 * the Ready condition and `spec.unschedulable` never do (the scheduler and
 * the kubelet judge those). An untolerated NoSchedule taint keeps a running
 * pod; an untolerated NoExecute taint evicts it.
 */
import { requiredNodeAffinityMatches } from './node-affinity.js';
import {
  addOrUpdateDaemonPodTolerations,
  findMatchingUntoleratedTaint,
} from './tolerations.js';
import type { DaemonSet, Node, Pod } from './types.js';

/** Whether a node should get a daemon pod, and keep one it has. */
export interface NodeShouldRun {
  shouldRun: boolean;
  shouldContinueRunning: boolean;
}

/**
 * Returns the pod the DaemonSet would run (template plus daemon
 * tolerations, in the DaemonSet's namespace), as upstream's `NewPod`.
 */
export const newPod = (ds: DaemonSet): Pod => {
  const template = ds.spec?.template;
  return {
    metadata: { ...template?.metadata, namespace: ds.metadata?.namespace },
    spec: addOrUpdateDaemonPodTolerations(template?.spec ?? { containers: [] }),
  };
};

/** Returns whether the DaemonSet should run, and keep running, on the node. */
export const nodeShouldRunDaemonPod = (
  node: Node,
  ds: DaemonSet
): NodeShouldRun => {
  const spec = addOrUpdateDaemonPodTolerations(
    ds.spec?.template.spec ?? { containers: [] }
  );
  const templateNodeName = ds.spec?.template.spec?.nodeName ?? '';
  if (templateNodeName !== '' && templateNodeName !== node.metadata?.name) {
    return { shouldRun: false, shouldContinueRunning: false };
  }
  if (!requiredNodeAffinityMatches(spec, node)) {
    return { shouldRun: false, shouldContinueRunning: false };
  }
  const taints = node.spec?.taints;
  const untolerated = findMatchingUntoleratedTaint(
    taints,
    spec.tolerations,
    (t) => t.effect === 'NoExecute' || t.effect === 'NoSchedule'
  );
  if (untolerated === undefined) {
    return { shouldRun: true, shouldContinueRunning: true };
  }
  const untoleratedNoExecute = findMatchingUntoleratedTaint(
    taints,
    spec.tolerations,
    (t) => t.effect === 'NoExecute'
  );
  return {
    shouldRun: false,
    shouldContinueRunning: untoleratedNoExecute === undefined,
  };
};
