/**
 * Ports `GetNodesNeedingPods` (OpenKruise
 * pkg/controller/daemonset/daemonset_util.go): progressive creation. With
 * `scaleStrategy.partitionedScaling`, the partition also holds back pod
 * creation: at most `desire − newPods − partition` nodes get a pod, in
 * ascending name order (byte-wise, as Go's sort.Strings: `node-10` before
 * `node-5`).
 *
 * Assumptions: `newPodsNum` counts nodes that already run a pod of the
 * current revision; `desire` counts nodes that should run one.
 * Invariants: without progressive creation every node is returned (sorted);
 * with it, never more than the partition allows, never a negative count.
 */

/** Returns the nodes that get a pod this sync, in creation order. */
export const getNodesNeedingPods = (
  newPodsNum: number,
  desire: number,
  partition: number,
  progressive: boolean,
  nodesNeedingPods: readonly string[]
): string[] => {
  const sorted = [...nodesNeedingPods].sort();
  if (!progressive) return sorted;
  const held = Math.max(Math.min(partition, desire), 0);
  const maxCreate = Math.min(
    Math.max(desire - newPodsNum - held, 0),
    sorted.length
  );
  return sorted.slice(0, maxCreate);
};
