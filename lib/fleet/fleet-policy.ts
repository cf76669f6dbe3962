/**
 * A fleet rollout policy (`fleet.dsr.dev/v1alpha1` FleetRolloutPolicy): one
 * DaemonSet identity rolled across registered clusters in ordered waves,
 * with node steps inside each cluster, bake times, health gates and a
 * failure budget. Parsed once from what `dsr fleet apply -f` reads, with
 * every problem named by its field path; the planner
 * (plan-fleet-rollout.ts) only ever sees a valid policy.
 */
import { InvalidObjectError } from '../errors.js';
import { parseLabelSelector } from '../reconcile/k8s/label-selector.js';
import { isMap } from '../reconcile/k8s/meta.js';
import type { IntOrString, LabelSelector } from '../reconcile/k8s/types.js';
import { Reader } from './policy-reader.js';

export const FLEET_API_VERSION = 'fleet.dsr.dev/v1alpha1';
export const FLEET_POLICY_KIND = 'FleetRolloutPolicy';

/** Clusters by registry id, or by a selector over registration labels. */
export interface ClusterSet {
  ids?: string[];
  selector?: LabelSelector;
}

/** One step inside a cluster: nodes kept on the old revision, then a bake. */
export interface NodeStep {
  partition: IntOrString;
  bakeMs: number;
}

export interface FleetWave {
  name: string;
  clusters: ClusterSet;
  /** Clusters of the wave rolling at once (int or % of the wave; default 1). */
  maxConcurrentClusters: IntOrString;
  nodeSteps: NodeStep[];
  /** Held after the wave's last cluster is done, before the next wave. */
  bakeMs: number;
  /** The wave waits for `dsr fleet approve`. */
  manualApproval: boolean;
}

export interface FleetPolicy {
  name: string;
  target: {
    namespace: string;
    name: string;
    kind: 'DaemonSet' | 'AdvancedDaemonSet';
  };
  clusters: ClusterSet;
  waves: FleetWave[];
  health: {
    /** A step whose target pods are not available within this fails. */
    progressDeadlineMs: number;
    maxRestartsPerPod: number;
    failOnWaitingReasons: string[];
  };
  failureBudget: {
    maxFailedClusters: number;
    maxFailedNodesPerCluster: IntOrString;
  };
  /** An unreachable cluster holds its wave, or counts as failed. */
  onUnknown: 'hold' | 'countAsFailed';
}

/** A policy that breaks the rules; lists every problem by field path. */
export class InvalidFleetPolicyError extends InvalidObjectError {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`invalid fleet rollout policy: ${problems.join('; ')}`);
    this.name = 'InvalidFleetPolicyError';
    this.problems = problems;
  }
}

const DEFAULT_WAITING_REASONS = [
  'CrashLoopBackOff',
  'ImagePullBackOff',
  'ErrImagePull',
  'CreateContainerConfigError',
];

const clusterSet = (r: Reader | undefined): ClusterSet => {
  if (r === undefined) return {};
  r.only(['ids', 'selector']);
  const set: ClusterSet = {};
  if (r.raw.ids !== undefined) {
    const ids = r.list('ids');
    if (ids.some((id) => typeof id !== 'string'))
      r.fail('ids', 'must be a list of cluster ids');
    set.ids = ids.filter((id): id is string => typeof id === 'string');
  }
  if (r.raw.selector !== undefined) {
    try {
      parseLabelSelector(r.raw.selector as LabelSelector);
      set.selector = r.raw.selector as LabelSelector;
    } catch (e) {
      r.fail('selector', `is not a label selector: ${(e as Error).message}`);
    }
  }
  if (set.ids === undefined && set.selector === undefined) {
    r.fail('ids', 'give ids or selector');
  }
  return set;
};

const nodeSteps = (wave: Reader): NodeStep[] => {
  if (wave.raw.nodeSteps === undefined) return [{ partition: 0, bakeMs: 0 }];
  const steps = wave.list('nodeSteps').flatMap((v, i) => {
    const r = wave.element('nodeSteps', i, v);
    if (r === undefined) return [];
    r.only(['partition', 'bake']);
    return [
      {
        partition: r.intOrPercent('partition', 0),
        bakeMs: r.duration('bake', '0s'),
      },
    ];
  });
  if (steps.length === 0) wave.fail('nodeSteps', 'must name at least one step');
  return steps;
};

const wave = (r: Reader): FleetWave => {
  r.only([
    'name',
    'clusters',
    'maxConcurrentClusters',
    'nodeSteps',
    'bake',
    'approval',
  ]);
  return {
    name: r.name('name') ?? '',
    clusters: clusterSet(r.map('clusters', true)),
    maxConcurrentClusters: r.intOrPercent('maxConcurrentClusters', 1),
    nodeSteps: nodeSteps(r),
    bakeMs: r.duration('bake', '0s'),
    manualApproval:
      r.oneOf('approval', ['automatic', 'manual'], 'automatic') === 'manual',
  };
};

/**
 * Returns the policy a parsed YAML or JSON document describes.
 *
 * @throws InvalidFleetPolicyError naming every problem by field path.
 */
export const parseFleetPolicy = (doc: unknown): FleetPolicy => {
  const problems: string[] = [];
  if (!isMap(doc))
    throw new InvalidFleetPolicyError(['the document must be an object']);
  const top = new Reader(problems, '', doc);
  top.only(['apiVersion', 'kind', 'metadata', 'spec']);
  if (doc.apiVersion !== FLEET_API_VERSION)
    top.fail('apiVersion', `must be ${FLEET_API_VERSION}`);
  if (doc.kind !== FLEET_POLICY_KIND)
    top.fail('kind', `must be ${FLEET_POLICY_KIND}`);
  const name = top.map('metadata', true)?.name('name') ?? '';
  const spec = top.map('spec', true) ?? new Reader(problems, 'spec', {});
  spec.only([
    'target',
    'clusters',
    'waves',
    'health',
    'failureBudget',
    'onUnknown',
    'onFailure',
  ]);
  const target =
    spec.map('target', true) ?? new Reader(problems, 'spec.target', {});
  target.only(['namespace', 'name', 'kind']);
  const health = spec.map('health') ?? new Reader(problems, 'spec.health', {});
  health.only([
    'progressDeadline',
    'maxRestartsPerPod',
    'failOnWaitingReasons',
  ]);
  const budget =
    spec.map('failureBudget') ?? new Reader(problems, 'spec.failureBudget', {});
  budget.only(['maxFailedClusters', 'maxFailedNodesPerCluster']);
  spec.oneOf('onFailure', ['halt'], 'halt');
  const waves = spec.list('waves').flatMap((v, i) => {
    const r = spec.element('waves', i, v);
    return r === undefined ? [] : [wave(r)];
  });
  if (waves.length === 0) spec.fail('waves', 'must name at least one wave');
  const names = waves.map((w) => w.name);
  names.forEach((n, i) => {
    if (n !== '' && names.indexOf(n) !== i)
      problems.push(`spec.waves[${i}].name: "${n}" names another wave too`);
  });
  const reasons = health.raw.failOnWaitingReasons;
  if (
    reasons !== undefined &&
    !(Array.isArray(reasons) && reasons.every((x) => typeof x === 'string'))
  ) {
    health.fail(
      'failOnWaitingReasons',
      'must be a list of container waiting reasons'
    );
  }
  const policy: FleetPolicy = {
    name,
    target: {
      namespace: target.name('namespace') ?? '',
      name: target.name('name') ?? '',
      kind: target.oneOf(
        'kind',
        ['DaemonSet', 'AdvancedDaemonSet'],
        'DaemonSet'
      ),
    },
    clusters: clusterSet(spec.map('clusters', true)),
    waves,
    health: {
      progressDeadlineMs: health.duration('progressDeadline', '15m'),
      maxRestartsPerPod: health.count('maxRestartsPerPod', 3),
      failOnWaitingReasons: Array.isArray(reasons)
        ? (reasons as string[])
        : DEFAULT_WAITING_REASONS,
    },
    failureBudget: {
      maxFailedClusters: budget.count('maxFailedClusters', 0),
      maxFailedNodesPerCluster: budget.intOrPercent(
        'maxFailedNodesPerCluster',
        0
      ),
    },
    onUnknown: spec.oneOf('onUnknown', ['hold', 'countAsFailed'], 'hold'),
  };
  if (problems.length > 0) throw new InvalidFleetPolicyError(problems);
  return policy;
};
