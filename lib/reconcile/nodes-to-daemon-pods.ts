/**
 * Ports the grouping half of `getNodesToDaemonPods`
 * (pkg/controller/daemon/daemon_controller.go); claiming happens before, in
 * the orchestrator.
 *
 * Invariants: a pod is grouped under `spec.nodeName`, else under the node its
 * `matchFields metadata.name` affinity targets; pods with no target are
 * skipped. Terminal pods that are being deleted are dropped unless
 * `includeDeletedTerminal` (kubernetes/kubernetes#118716).
 */

import { isDeleting } from './k8s/meta.js';
import { getTargetNodeName } from './k8s/node-affinity.js';
import { isPodTerminal } from './k8s/pod-util.js';
import type { Pod } from './k8s/types.js';

/** Returns the claimed pods grouped by target node name. */
export const getNodesToDaemonPods = (
  claimedPods: readonly Pod[],
  includeDeletedTerminal: boolean
): Map<string, Pod[]> => {
  const byNode = new Map<string, Pod[]>();
  for (const pod of claimedPods) {
    if (!includeDeletedTerminal && isPodTerminal(pod) && isDeleting(pod)) {
      continue;
    }
    const nodeName = getTargetNodeName(pod);
    if (nodeName === undefined) continue;
    const pods = byNode.get(nodeName);
    if (pods) pods.push(pod);
    else byNode.set(nodeName, [pod]);
  }
  return byNode;
};
