/**
 * Ports upstream's `findUpdatedPodsOnNode` (pkg/controller/daemon/update.go):
 * the current and the outdated pod of one node, shared by the rolling update,
 * progressive creation and the working-set filter.
 */

import { isDeleting } from './k8s/meta.js';
import { getTemplateGeneration, isPodUpdated } from './k8s/pod-util.js';
import type { DaemonSet, Pod } from './k8s/types.js';

/** The current and outdated pod of one node (`findUpdatedPodsOnNode`). */
export interface UpdatedPodsOnNode {
  newPod?: Pod;
  oldPod?: Pod;
  /** false when the node has more than one new or more than one old pod. */
  ok: boolean;
}

/** Returns the node's new and old pod, ignoring pods being deleted. */
export const findUpdatedPodsOnNode = (
  ds: DaemonSet,
  podsOnNode: readonly Pod[],
  hash: string
): UpdatedPodsOnNode => {
  const generation = getTemplateGeneration(ds);
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const pod of podsOnNode) {
    if (isDeleting(pod)) continue;
    if (isPodUpdated(pod, hash, generation)) {
      if (newPod !== undefined) return { ok: false };
      newPod = pod;
    } else {
      if (oldPod !== undefined) return { ok: false };
      oldPod = pod;
    }
  }
  return { newPod, oldPod, ok: true };
};
