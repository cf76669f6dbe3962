/**
 * Ports the small readers of OpenKruise Advanced DaemonSet's rollout controls
 * (pkg/controller/daemonset/daemonset_util.go `isDaemonSetPaused`,
 * `isDaemonSetCreationProgressively`, and the partition and burst scaling of
 * daemonset_controller.go / daemonset_update.go).
 *
 * Deliberate difference (spec/kruise-ads.md §4 #4): Kruise scales a
 * percentage partition or burst against the *previous*
 * `status.desiredNumberScheduled`, so on a new DaemonSet a percentage
 * partition is 0 and a percentage burst creates nothing until a status has
 * been written. Here both scale against the desired count of the sync at
 * hand (nodes that should run a pod), so "50%" means half from the start.
 * An apps/v1 DaemonSet carries none of these fields: every reader returns
 * upstream's behaviour for it.
 */

import { getScaledValueFromIntOrPercent } from '../k8s/int-or-string.js';
import {
  isEmptyLabelSelector,
  labelSelectorMatches,
} from '../k8s/label-selector.js';
import type { DaemonSet, Node, Pod } from '../k8s/types.js';
import { BURST_REPLICAS } from '../slow-start.js';

/** Kruise's lifecycle label; hook controllers watch and clear it. */
export const LIFECYCLE_STATE_LABEL = 'lifecycle.apps.kruise.io/state';
/** The lifecycle state of a pod held by a preDelete hook. */
export const PREPARING_DELETE = 'PreparingDelete';

const rollingUpdateOf = (ds: DaemonSet) =>
  ds.spec?.updateStrategy?.type === 'RollingUpdate'
    ? ds.spec.updateStrategy.rollingUpdate
    : undefined;

/** Returns whether the update pass is paused (`rollingUpdate.paused`). */
export const isDaemonSetPaused = (ds: DaemonSet): boolean =>
  ds.spec?.updateStrategy?.rollingUpdate?.paused === true;

/** Returns whether the partition gates pod creation too. */
export const isDaemonSetCreationProgressively = (ds: DaemonSet): boolean =>
  ds.spec?.scaleStrategy?.partitionedScaling === true;

/**
 * Returns the partition scaled against `desired` (rounded down), or
 * undefined when the DaemonSet sets none or is not RollingUpdate.
 */
export const getPartition = (
  ds: DaemonSet,
  desired: number
): number | undefined => {
  const partition = rollingUpdateOf(ds)?.partition;
  if (partition === undefined || partition === null) return undefined;
  return getScaledValueFromIntOrPercent(partition, desired, false);
};

/**
 * Returns how many pods one sync may create, delete or update in place:
 * `burstReplicas` scaled against `desired` (rounded down, at least 1), or
 * upstream's BURST_REPLICAS when unset (apps/v1).
 */
export const getBurstReplicas = (ds: DaemonSet, desired: number): number => {
  const burst = ds.spec?.burstReplicas;
  if (burst === undefined || burst === null) return BURST_REPLICAS;
  return Math.max(getScaledValueFromIntOrPercent(burst, desired, false), 1);
};

/** Returns whether a preDelete hook holds the pod (`PreparingDelete`). */
export const isPreparingDelete = (pod: Pod | undefined): boolean =>
  pod?.metadata?.labels?.[LIFECYCLE_STATE_LABEL] === PREPARING_DELETE;

/**
 * Returns whether the canary selector picks `node` for the update (Kruise
 * `NodeShouldUpdateBySelector`): RollingUpdate, a non-empty
 * `rollingUpdate.selector`, and the node's labels match it. An invalid
 * selector selects nothing.
 */
export const nodeShouldUpdateBySelector = (
  node: Node,
  ds: DaemonSet
): boolean => {
  const selector = rollingUpdateOf(ds)?.selector;
  if (selector === undefined || isEmptyLabelSelector(selector)) return false;
  try {
    return labelSelectorMatches(selector, node.metadata?.labels);
  } catch {
    return false;
  }
};
