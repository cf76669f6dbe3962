/**
 * Why a node has, or has no, daemon pod — in the words of the predicate that
 * decides it. Built on the same deciders a sync runs
 * (`nodeShouldRunDaemonPod`, `findUpdatedPodsOnNode`, the rollout controls,
 * failed-pod backoff, `planRollingUpdate`); no upstream counterpart (upstream
 * answers only through Events).
 *
 * Assumptions: `pods` are the DaemonSet's daemon pods on this node (claimed
 * or adoptable); `nextSync` names what the next sync would do here, as a dry
 * run of the orchestrator found it.
 */
import {
  getPartition,
  isDaemonSetCreationProgressively,
  isDaemonSetPaused,
  isPreparingDelete,
  nodeShouldUpdateBySelector,
} from './advanced/rollout-controls.js';
import {
  type BackoffEntry,
  FAILED_POD_BACKOFF,
  isInBackOffSinceUpdate,
} from './backoff-policy.js';
import { isDeleting, nameOf } from './k8s/meta.js';
import {
  getTemplateGeneration,
  isPodReady,
  isPodUpdated,
} from './k8s/pod-util.js';
import type { DaemonSet, Node, Pod } from './k8s/types.js';
import {
  type NodeRejection,
  nodeShouldRunDaemonPod,
} from './node-should-run.js';
import type { UpdateBudgetUse } from './rolling-update.js';
import { findUpdatedPodsOnNode } from './updated-pods.js';

/** What the next sync would do on this node. */
export interface NextSyncOnNode {
  createsPod: boolean;
  deletesPods: readonly string[];
  /** Pods it patches (adoption, release, in-place update, conditions). */
  patchesPods: readonly string[];
  /** Expectations hold the sync back (it writes status only). */
  waitsForExpectations: boolean;
  /** The rolling update pass's budget, when one ran for the DaemonSet. */
  budget?: UpdateBudgetUse;
  /** Whether the rolling update's working set includes this node. */
  inUpdateWorkingSet?: boolean;
}

/** The node's daemon pods as explain shows them. */
export interface ExplainedPod {
  name: string;
  phase: string;
  revision: 'current' | 'old';
  ready: boolean;
  deleting: boolean;
}

/** Why the node has, or has no, daemon pod. */
export interface NodeExplanation {
  node: string;
  daemonSet: string;
  nodeExists: boolean;
  shouldRun: boolean;
  shouldContinueRunning: boolean;
  /** The predicate that keeps a pod off the node. */
  rejection?: NodeRejection;
  pods: ExplainedPod[];
  /** One line: the answer. */
  verdict: string;
  /** Supporting lines: rollout state, backoff, the next sync. */
  details: string[];
}

/** Inputs of one explanation. */
export interface ExplainNodeInput {
  ds: DaemonSet;
  nodeName: string;
  node: Node | undefined;
  pods: readonly Pod[];
  hash: string;
  nowMs: number;
  /** The node's failed-pod backoff entry, when the state was read. */
  backoff?: BackoffEntry;
  nextSync: NextSyncOnNode;
}

const describePod = (p: ExplainedPod): string =>
  `${p.name} (${p.revision} revision, ${p.phase}${p.ready ? ', Ready' : ''})`;

/** Returns why an old pod on a node that should run one is not replaced. */
const whyNotUpdated = (
  ds: DaemonSet,
  node: Node,
  next: NextSyncOnNode,
  oldPod: Pod | undefined
): string => {
  if (ds.spec?.updateStrategy?.type === 'OnDelete') {
    return 'updateStrategy OnDelete: the pod is replaced only when someone deletes it';
  }
  if (isDaemonSetPaused(ds))
    return 'the rollout is paused (rollingUpdate.paused)';
  if (isPreparingDelete(oldPod)) {
    return "held by its preDelete hook (PreparingDelete) until the hook's labels or finalizers are removed";
  }
  if (next.waitsForExpectations) {
    return 'the reconciler waits to observe its earlier creates and deletes';
  }
  if (next.deletesPods.length > 0 || next.createsPod) {
    return 'the next sync replaces it (rolling update)';
  }
  if (next.patchesPods.length > 0) {
    return 'the next sync updates it in place';
  }
  const selector = ds.spec?.updateStrategy?.rollingUpdate?.selector;
  if (selector && !nodeShouldUpdateBySelector(node, ds)) {
    return 'the node does not match the canary selector (rollingUpdate.selector)';
  }
  if (next.inUpdateWorkingSet === false) {
    const partition = ds.spec?.updateStrategy?.rollingUpdate?.partition;
    return `held on the old revision by partition ${partition} (the nodes not yet updated with the smallest names stay)`;
  }
  const b = next.budget;
  if (b === undefined) return 'it waits for the rolling update';
  return b.maxSurge > 0
    ? `it waits for surge budget: ${b.inUse} of maxSurge ${b.maxSurge} nodes surging`
    : `it waits for the update budget: ${b.inUse} of maxUnavailable ${b.maxUnavailable} nodes unavailable`;
};

/** Returns why a node that should run a pod has none yet. */
const whyNoPod = (
  input: ExplainNodeInput,
  failed: readonly ExplainedPod[]
): string => {
  const { ds, nextSync: next, backoff, nowMs } = input;
  if (
    failed.length > 0 &&
    isInBackOffSinceUpdate(backoff, nowMs, FAILED_POD_BACKOFF) &&
    backoff !== undefined
  ) {
    const until = new Date(backoff.lastUpdateMs + backoff.delayMs);
    return `failed pod ${failed[0]?.name} is in failed-pod backoff until ${until.toISOString()}; it is replaced after that`;
  }
  if (next.waitsForExpectations) {
    return 'no pod yet: the reconciler waits to observe its earlier creates and deletes';
  }
  if (next.createsPod) return 'no pod yet: the next sync creates one';
  if (failed.length > 0 && next.deletesPods.length > 0) {
    return `failed pod ${failed[0]?.name}: the next sync deletes it, and a later one creates a new pod`;
  }
  const partition = getPartition(ds, Number.MAX_SAFE_INTEGER);
  if (isDaemonSetCreationProgressively(ds) && partition !== undefined) {
    return `no pod yet: creation is held back by partition ${partition} (scaleStrategy.partitionedScaling)`;
  }
  return 'no pod yet: beyond this sync’s burst of creates; a later sync creates it';
};

/**
 * Returns why the node has, or has no, daemon pod of the DaemonSet.
 *
 * @example
 * explainNode({ ds, nodeName: 'gpu-1', node, pods, hash, nowMs, nextSync })
 *   .verdict; // 'no daemon pod: untolerated taint dedicated=gpu:NoSchedule'
 */
export const explainNode = (input: ExplainNodeInput): NodeExplanation => {
  const { ds, nodeName, node, hash, nextSync: next } = input;
  const generation = ds.metadata?.generation;
  const current = findUpdatedPodsOnNode(ds, input.pods, hash);
  const templateGeneration = getTemplateGeneration(ds);
  const pods: ExplainedPod[] = input.pods.map((p) => ({
    name: nameOf(p),
    phase: p.status?.phase ?? 'Pending',
    revision: isPodUpdated(p, hash, templateGeneration) ? 'current' : 'old',
    ready: isPodReady(p),
    deleting: isDeleting(p),
  }));
  const base = {
    node: nodeName,
    daemonSet: `${ds.metadata?.namespace}/${ds.metadata?.name}`,
    pods,
  };
  const actions = [
    ...(next.createsPod ? ['next sync: creates a daemon pod here'] : []),
    ...next.deletesPods.map((p) => `next sync: deletes pod ${p}`),
    ...next.patchesPods.map((p) => `next sync: patches pod ${p}`),
  ];
  if (node === undefined) {
    return {
      ...base,
      nodeExists: false,
      shouldRun: false,
      shouldContinueRunning: false,
      verdict: `node ${nodeName} does not exist`,
      details: actions,
    };
  }
  const fit = nodeShouldRunDaemonPod(node, ds);
  const live = pods.filter((p) => !p.deleting && p.phase !== 'Failed');
  const failed = pods.filter((p) => !p.deleting && p.phase === 'Failed');
  const shown = live.map(describePod).join(', ');
  let verdict: string;
  const details: string[] = [];
  if (fit.rejection !== undefined) {
    const why = fit.rejection.reason;
    verdict =
      live.length === 0
        ? `no daemon pod: ${why}`
        : fit.shouldContinueRunning
          ? `${shown} keeps running, but no new pod would be placed: ${why}`
          : `${shown} is removed: ${why}`;
  } else if (live.length === 0) {
    verdict = whyNoPod(input, failed);
  } else if (current.newPod !== undefined || !current.ok) {
    verdict = `runs ${shown}`;
    if (!current.ok)
      details.push(
        'more than one pod of a revision: the next sync keeps the oldest'
      );
  } else {
    verdict = `runs ${shown} on an old revision: ${whyNotUpdated(ds, node, next, current.oldPod)}`;
  }
  if (
    generation !== undefined &&
    ds.status?.observedGeneration !== generation
  ) {
    details.push(
      `the DaemonSet's generation ${generation} is not yet observed (status has ${ds.status?.observedGeneration ?? 'none'})`
    );
  }
  return {
    ...base,
    nodeExists: true,
    shouldRun: fit.shouldRun,
    shouldContinueRunning: fit.shouldContinueRunning,
    ...(fit.rejection === undefined ? {} : { rejection: fit.rejection }),
    verdict,
    details: [...details, ...actions],
  };
};
