/**
 * The next sync of one DaemonSet seen per node: the daemon pods of each
 * node, the rolling update's budget and working set, and what the dry run
 * would write there. `plan` and `explain` print from this.
 */
import { filterDaemonPodsToUpdate } from '../../reconcile/advanced/filter-daemon-pods-node-to-update.js';
import { isDaemonSetPaused } from '../../reconcile/advanced/rollout-controls.js';
import { getControllerOf } from '../../reconcile/k8s/controller-ref.js';
import { isDeleting, nameOf } from '../../reconcile/k8s/meta.js';
import { getTargetNodeName } from '../../reconcile/k8s/node-affinity.js';
import {
  getTemplateGeneration,
  isPodUpdated,
} from '../../reconcile/k8s/pod-util.js';
import type { DaemonSet, Pod } from '../../reconcile/k8s/types.js';
import { getNodesToDaemonPods } from '../../reconcile/nodes-to-daemon-pods.js';
import { rolloutView } from '../../reconcile/on-delete/rollout-annotation.js';
import {
  planRollingUpdate,
  type UpdateBudgetUse,
} from '../../reconcile/rolling-update.js';
import { updatedDesiredNodeCounts } from '../../reconcile/update-budget.js';
import type { NextSync } from '../../sync/plan-next-sync.js';

/** The per-node view of a planned sync. */
export interface NextSyncView {
  ds: DaemonSet;
  hash: string;
  /** Daemon pods by node: controlled by the DaemonSet, or orphans it adopts. */
  byNode: Map<string, Pod[]>;
  /** Nodes the next sync creates a pod on. */
  creates: string[];
  /** Pod names the next sync deletes, and patches. */
  deletes: string[];
  patches: string[];
  /** Node of each pod read, by pod name. */
  nodeOfPod: Map<string, string>;
  /** The rolling update pass's budget (RollingUpdate, not paused, pods outdated). */
  budget?: UpdateBudgetUse;
  /** Nodes the rolling update may act on (partition and canary applied). */
  workingSet?: ReadonlySet<string>;
}

const isDaemonPodOf = (ds: DaemonSet) => (pod: Pod) => {
  const owner = getControllerOf(pod);
  return owner === undefined || owner.uid === ds.metadata?.uid;
};

/** Returns the per-node view of a planned sync of an existing DaemonSet. */
export const nextSyncView = (
  next: NextSync & { daemonSet: DaemonSet },
  nowMs: number
): NextSyncView => {
  // An opted-in OnDelete DaemonSet rolls as its controls say.
  const ds = rolloutView(next.daemonSet);
  const hash = next.hash ?? '';
  const byNode = getNodesToDaemonPods(
    next.pods.filter(isDaemonPodOf(ds)),
    false
  );
  const nodeOfPod = new Map(
    next.pods.map((p) => [nameOf(p), getTargetNodeName(p) ?? ''])
  );
  const view: NextSyncView = {
    ds,
    hash,
    byNode,
    nodeOfPod,
    creates: [],
    deletes: [],
    patches: [],
  };
  for (const w of next.writes) {
    if (w.verb === 'create-pod') view.creates.push(w.node);
    else if (w.verb === 'delete-pod') view.deletes.push(w.pod);
    else if (w.verb === 'patch-pod' && !view.patches.includes(w.pod)) {
      view.patches.push(w.pod);
    }
  }
  const generation = getTemplateGeneration(ds);
  const outdated = [...byNode.values()]
    .flat()
    .some((p) => !isDeleting(p) && !isPodUpdated(p, hash, generation));
  const rolling =
    ds.spec?.updateStrategy?.type === 'RollingUpdate' && !isDaemonSetPaused(ds);
  // The budget matters while a rollout replaces pods, not on a create.
  if (rolling && outdated && hash !== '') {
    const nodes = next.nodes;
    const plan = planRollingUpdate(ds, nodes, byNode, hash, nowMs);
    const cut = filterDaemonPodsToUpdate(
      ds,
      nodes,
      hash,
      updatedDesiredNodeCounts(ds, nodes, byNode)
    );
    view.budget = plan.budget;
    view.workingSet = new Set(cut.nodeToDaemonPods.keys());
  }
  return view;
};
