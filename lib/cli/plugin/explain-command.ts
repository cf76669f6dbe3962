/**
 * `kubectl dsr explain node NODE --ds TARGET`: why the node has, or has no,
 * daemon pod, naming the predicate that decides it, and what the next sync
 * would do there (a dry run of the reconciler's orchestrator). Writes
 * nothing.
 */

import {
  explainNode,
  type NodeExplanation,
} from '../../reconcile/explain-node.js';
import { failedPodsBackoffKey } from '../../reconcile/pods-should-be-on-node.js';
import type { NextSync } from '../../sync/plan-next-sync.js';
import { nextSyncView } from './next-sync-view.js';

/** Returns the explanation of one node from a dry-run sync. */
export const explainReport = (
  next: NextSync & { daemonSet: NonNullable<NextSync['daemonSet']> },
  nodeName: string,
  nowMs: number,
  cluster: string
): NodeExplanation & { stateRead: boolean } => {
  const view = nextSyncView(next, nowMs);
  const onNode = (pod: string) => view.nodeOfPod.get(pod) === nodeName;
  const backoffId = `${cluster}/${failedPodsBackoffKey(view.ds, nodeName)}`;
  const backoff = next.backoff.get(backoffId);
  const explanation = explainNode({
    ds: view.ds,
    nodeName,
    node: next.nodes.find((n) => n.metadata?.name === nodeName),
    pods: view.byNode.get(nodeName) ?? [],
    hash: view.hash,
    nowMs,
    ...(backoff === undefined ? {} : { backoff }),
    nextSync: {
      createsPod: view.creates.includes(nodeName),
      deletesPods: view.deletes.filter(onNode),
      patchesPods: view.patches.filter(onNode),
      waitsForExpectations: !next.expectationsMet,
      ...(view.budget === undefined ? {} : { budget: view.budget }),
      ...(view.workingSet === undefined
        ? {}
        : { inUpdateWorkingSet: view.workingSet.has(nodeName) }),
    },
  });
  return { ...explanation, stateRead: next.stateRead };
};

/** Returns the lines `explain` prints. */
export const formatExplanation = (
  e: NodeExplanation & { stateRead: boolean }
): string[] => [
  `node ${e.node}, DaemonSet ${e.daemonSet}`,
  `  ${e.verdict}`,
  ...(e.rejection === undefined
    ? []
    : [`  predicate: ${e.rejection.predicate}`]),
  ...e.details.map((d) => `  ${d}`),
  ...(e.stateRead
    ? []
    : [
        "note: the reconcilers' expectations and failed-pod backoff were not read; taken as met and none",
      ]),
];
