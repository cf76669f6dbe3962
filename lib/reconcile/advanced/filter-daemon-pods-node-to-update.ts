/**
 * Ports `filterDaemonPodsToUpdate` and `filterDaemonPodsNodeToUpdate`
 * (OpenKruise pkg/controller/daemonset/daemonset_update.go): the working set
 * of a rolling update under a partition and a node-label canary selector.
 *
 * Node names are sorted ascending and walked from the last to the first;
 * each node goes to the first bucket it fits: **updated** (a current pod, or
 * more than one pod of a class), **updating** (no live pod, or only an old
 * pod held by a preDelete hook), **selected** (the canary selector matches
 * its labels), **rest**. The working set is updated ++ updating ++ (selector
 * ? selected : rest), cut to `nodes − partition`: already updated and empty
 * nodes use the quota first, then the largest names; the `partition`
 * smallest names not yet updated stay on their old revision.
 *
 * Assumptions: `nodeToDaemonPods` has an entry for every node that should
 * run a pod (updatedDesiredNodeCounts); `partition` is already scaled.
 * Invariants: nodes missing from `nodes` never enter the working set; with a
 * selector, a node that does not match is never in it.
 */
import { labelSelectorMatches } from '../k8s/label-selector.js';
import { nameOf } from '../k8s/meta.js';
import type { DaemonSet, Node, Pod } from '../k8s/types.js';
import type { UpdateBudget } from '../update-budget.js';
import { findUpdatedPodsOnNode } from '../updated-pods.js';
import { getPartition, isPreparingDelete } from './rollout-controls.js';

/** Returns the nodes a rolling update may act on, in Kruise's order. */
export const filterDaemonPodsNodeToUpdate = (
  ds: DaemonSet,
  nodes: readonly Node[],
  hash: string,
  nodeToDaemonPods: ReadonlyMap<string, readonly Pod[]>,
  partition: number
): string[] => {
  const selector = ds.spec?.updateStrategy?.rollingUpdate?.selector;
  const labelsOf = new Map(nodes.map((n) => [nameOf(n), n.metadata?.labels]));
  const names = [...nodeToDaemonPods.keys()]
    .filter((name) => labelsOf.has(name))
    .sort();
  const updated: string[] = [];
  const updating: string[] = [];
  const selected: string[] = [];
  const rest: string[] = [];
  for (const name of [...names].reverse()) {
    const pods = nodeToDaemonPods.get(name) as readonly Pod[];
    const { newPod, oldPod, ok } = findUpdatedPodsOnNode(ds, pods, hash);
    if (!ok || newPod !== undefined) updated.push(name);
    else if (oldPod === undefined || isPreparingDelete(oldPod)) {
      updating.push(name);
    } else if (selector && labelSelectorMatches(selector, labelsOf.get(name))) {
      selected.push(name);
    } else rest.push(name);
  }
  const ordered = [...updated, ...updating, ...(selector ? selected : rest)];
  return ordered.slice(0, Math.max(names.length - partition, 0));
};

/**
 * Returns the budget with its node map cut to the nodes the own kind's
 * partition and canary selector let the update touch (Kruise
 * `filterDaemonPodsToUpdate`); unchanged when neither is set, as always for
 * apps/v1 (Kruise's filter then keeps every node and only reorders them, and
 * the order within a pass is not a guarantee here or upstream).
 */
export const filterDaemonPodsToUpdate = (
  ds: DaemonSet,
  nodes: readonly Node[],
  hash: string,
  budget: UpdateBudget
): UpdateBudget => {
  const rollingUpdate = ds.spec?.updateStrategy?.rollingUpdate;
  if (rollingUpdate?.partition === undefined && !rollingUpdate?.selector) {
    return budget;
  }
  const partition = getPartition(ds, budget.desiredNumberScheduled) ?? 0;
  const names = filterDaemonPodsNodeToUpdate(
    ds,
    nodes,
    hash,
    budget.nodeToDaemonPods,
    partition
  );
  const pods = budget.nodeToDaemonPods;
  return {
    ...budget,
    nodeToDaemonPods: new Map(
      names.map((n) => [n, pods.get(n) as readonly Pod[]])
    ),
  };
};
