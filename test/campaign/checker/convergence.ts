/**
 * converges-after-faults: what "settled" means for one DaemonSet, checked
 * against the checker's own view. The status must say what upstream's
 * updateDaemonSetStatus would write for the pods and nodes as they are
 * (daemon_controller.go), and the pods must be what manage and
 * rollingUpdate aim for: one live, available pod per eligible node, all of
 * the current revision under RollingUpdate, none on nodes that must not
 * run it. Terminating pods may linger. Upstream keeps an existing pod on a
 * node that only stopped admitting new ones (an untolerated NoSchedule
 * taint: !shouldRun but shouldContinueRunning) and counts it in
 * numberMisscheduled, so such a node may keep one pod and the expected
 * numberMisscheduled is what upstream would count, not 0. An opted-in
 * OnDelete DaemonSet (the product's rollout beside the cluster's
 * controller) is done when at most its partition's eligible nodes still
 * run an old pod (on-delete-controls.ts; the runner resumes it and drops
 * its canary selector when the faults stop); its status is the cluster's
 * controller's, which the product never writes, so it is not judged
 * (kube-controller-manager 1.36 was seen to leave it stale for minutes
 * after a NoSchedule taint, its pods converged).
 */
import {
  type ClusterView,
  isAvailable,
  isLive,
  keyOf,
  podsByNode,
  targetNode,
} from './cluster-view.js';
import { currentRevision, revisionHash } from './current-revision.js';
import type { DaemonSet, Pod } from './kube-objects.js';
import { REVISION_HASH_LABEL } from './kube-objects.js';
import { nodeShouldRunDaemonPod, type RunLabel } from './node-eligibility.js';
import {
  type OnDeleteControls,
  onDeleteControls,
} from './on-delete-controls.js';
import {
  isRollingUpdate,
  scaledValue,
  surgeCount,
  unavailabilityBudget,
} from './rolling-budget.js';
import type { Violation } from './violation.js';

/** Why one DaemonSet has not converged. */
export interface Divergence {
  daemonSet: string;
  /** The first node a problem names, for the violation's `node`. */
  node?: string;
  /** "<ns/name>: <N> eligible nodes, status …; <problem>; <problem>". */
  detail: string;
}

interface Problem {
  text: string;
  node?: string;
}

/** The DaemonSet's nodes as upstream's manage loop sees them. */
interface NodeClasses {
  /** shouldRun. */
  eligible: string[];
  /** !shouldRun but shouldContinueRunning: may keep an existing pod. */
  keepOnly: Set<string>;
  /** Every node object (upstream's nodeList). */
  existing: Set<string>;
}

const classify = (
  view: ClusterView,
  ds: DaemonSet,
  runLabel: RunLabel
): NodeClasses => {
  const classes: NodeClasses = {
    eligible: [],
    keepOnly: new Set(),
    existing: new Set(),
  };
  for (const node of view.nodes.values()) {
    const name = node.metadata.name;
    const verdict = nodeShouldRunDaemonPod(node, ds, runLabel);
    classes.existing.add(name);
    if (verdict.shouldRun) classes.eligible.push(name);
    else if (verdict.shouldContinueRunning) classes.keepOnly.add(name);
  }
  return classes;
};

/**
 * Returns upstream's numberMisscheduled: nodes that should not run the
 * DaemonSet yet hold one of its pods (getNodesToDaemonPods leaves out only
 * pods both finished and being deleted).
 */
const expectedMisscheduled = (pods: Pod[], nodes: NodeClasses): number => {
  const counted = pods.filter(
    (p) =>
      !p.metadata.deletionTimestamp ||
      (p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded')
  );
  const eligible = new Set(nodes.eligible);
  return [...podsByNode(counted).keys()].filter(
    (n) => nodes.existing.has(n) && !eligible.has(n)
  ).length;
};

const statusProblems = (
  ds: DaemonSet,
  desired: number,
  misscheduled: number
): Problem[] => {
  const s = ds.status ?? {};
  const problems: Problem[] = [];
  const generation = ds.metadata.generation ?? 0;
  if ((s.observedGeneration ?? 0) < generation) {
    problems.push({
      text: `observedGeneration ${s.observedGeneration ?? 0} < generation ${generation}`,
    });
  }
  const expected: [string, number | undefined, number][] = [
    ['desiredNumberScheduled', s.desiredNumberScheduled, desired],
    ['currentNumberScheduled', s.currentNumberScheduled, desired],
    ['numberMisscheduled', s.numberMisscheduled, misscheduled],
    ['numberReady', s.numberReady, desired],
    ['numberAvailable', s.numberAvailable, desired],
    ['numberUnavailable', s.numberUnavailable, 0],
  ];
  if (isRollingUpdate(ds)) {
    expected.push([
      'updatedNumberScheduled',
      s.updatedNumberScheduled,
      desired,
    ]);
  }
  for (const [field, have, want] of expected) {
    if ((have ?? 0) !== want) {
      problems.push({ text: `status ${field} ${have ?? 0}, want ${want}` });
    }
  }
  return problems;
};

/** Returns the problems of one DaemonSet, or undefined once converged. */
export const divergenceOf = (
  view: ClusterView,
  ds: DaemonSet,
  runLabel: RunLabel,
  atMs: number
): Divergence | undefined => {
  const nodes = classify(view, ds, runLabel);
  const pods = view.daemonPods(ds);
  const desired = nodes.eligible.length;
  const controls = onDeleteControls(ds);
  const old = controls ? oldOnEligible(view, ds, nodes) : [];
  const problems = [
    // An OnDelete rollout's status is the cluster's controller's to write.
    ...(controls
      ? []
      : statusProblems(ds, desired, expectedMisscheduled(pods, nodes))),
    ...podProblems(ds, pods, nodes, atMs),
    ...(isRollingUpdate(ds) ? revisionProblems(view, ds, nodes) : []),
    ...(controls ? partitionProblems(old, controls, desired) : []),
  ];
  if (problems.length === 0) return undefined;
  const key = keyOf(ds.metadata);
  const node = problems.find((p) => p.node)?.node;
  const s = ds.status ?? {};
  return {
    daemonSet: key,
    ...(node ? { node } : {}),
    detail:
      `${key}: ${desired} eligible nodes, status desired ` +
      `${s.desiredNumberScheduled ?? 0} current ${s.currentNumberScheduled ?? 0} ` +
      `ready ${s.numberReady ?? 0} available ${s.numberAvailable ?? 0} ` +
      `updated ${s.updatedNumberScheduled ?? 0} misscheduled ` +
      `${s.numberMisscheduled ?? 0}; ${problems.map((p) => p.text).join('; ')}`,
  };
};

const podProblems = (
  ds: DaemonSet,
  pods: Pod[],
  nodes: NodeClasses,
  atMs: number
): Problem[] => {
  const problems: Problem[] = [];
  const byNode = podsByNode(pods.filter(isLive));
  const minReady = ds.spec.minReadySeconds ?? 0;
  const names = (on: Pod[]) => on.map((p) => p.metadata.name).join(', ');
  for (const node of nodes.eligible) {
    const on = byNode.get(node) ?? [];
    if (on.length === 0)
      problems.push({ text: `node ${node} has no pod`, node });
    else if (on.length > 1) {
      problems.push({
        text: `node ${node} has ${on.length} live pods (${names(on)})`,
        node,
      });
    } else if (!isAvailable(on[0] as Pod, minReady, atMs)) {
      problems.push({
        text: `node ${node} pod ${names(on)} is not available`,
        node,
      });
    }
  }
  const eligible = new Set(nodes.eligible);
  for (const [node, on] of byNode) {
    if (eligible.has(node)) continue;
    if (nodes.keepOnly.has(node)) {
      if (on.length > 1) {
        problems.push({
          text: `node ${node} may keep one pod but has ${names(on)}`,
          node,
        });
      }
    } else if (nodes.existing.has(node)) {
      problems.push({
        text: `node ${node} must not run it but has ${names(on)}`,
        node,
      });
    } else {
      // Bound pods of a deleted node are the pod garbage collector's.
      const unbound = on.filter((p) => !p.spec?.nodeName);
      if (unbound.length > 0) {
        problems.push({
          text: `node ${node} does not exist but ${names(unbound)} target it`,
          node,
        });
      }
    }
  }
  return problems;
};

/**
 * Returns the pods not on the current revision. A node that may only keep
 * its pod keeps an old one when the rolling update may replace nothing:
 * upstream scales maxUnavailable on the nodes that should run a pod, so with
 * none (and no surge) the budget is 0 and such a pod stays (campaign seed
 * 30811); otherwise the update deletes it, without a replacement.
 */
const revisionProblems = (
  view: ClusterView,
  ds: DaemonSet,
  nodes: NodeClasses
): Problem[] => {
  const desired = nodes.eligible.length;
  const replacesNothing =
    surgeCount(ds, desired) === 0 && unavailabilityBudget(ds, desired) === 0;
  const current = currentRevision(view, ds);
  const hash = current ? revisionHash(current) : undefined;
  if (!current || !hash) {
    return [{ text: 'no ControllerRevision of it holds the current template' }];
  }
  return view
    .daemonPods(ds)
    .filter(isLive)
    .filter((p) => p.metadata.labels?.[REVISION_HASH_LABEL] !== hash)
    .filter(
      (p) => !(replacesNothing && nodes.keepOnly.has(targetNode(p) ?? ''))
    )
    .map((p) => ({
      text:
        `pod ${p.metadata.name} has revision hash ` +
        `${p.metadata.labels?.[REVISION_HASH_LABEL] ?? '(none)'}, current is ` +
        `${hash} (${current.metadata.name})`,
      ...(p.spec?.nodeName ? { node: p.spec.nodeName } : {}),
    }));
};

/**
 * Returns the eligible nodes whose live pods are not all of the current
 * revision (every eligible node, without a current revision).
 */
const oldOnEligible = (
  view: ClusterView,
  ds: DaemonSet,
  nodes: NodeClasses
): string[] => {
  const current = currentRevision(view, ds);
  const hash = current ? revisionHash(current) : undefined;
  const byNode = podsByNode(view.daemonPods(ds).filter(isLive));
  return nodes.eligible.filter((node) =>
    (byNode.get(node) ?? []).some(
      (p) =>
        hash === undefined || p.metadata.labels?.[REVISION_HASH_LABEL] !== hash
    )
  );
};

/**
 * Returns the problem of an OnDelete rollout that left more eligible nodes
 * on an old revision than its partition holds (scaled down against the
 * eligible nodes, as Kruise scales it).
 */
const partitionProblems = (
  old: readonly string[],
  controls: OnDeleteControls,
  desired: number
): Problem[] => {
  const held = scaledValue(controls.partition, desired, false) ?? 0;
  if (old.length <= held) return [];
  return [
    {
      text: `${old.length} eligible nodes on an old revision (${old.join(', ')}), partition ${controls.partition} holds ${held}`,
      ...(old[0] ? { node: old[0] } : {}),
    },
  ];
};

/**
 * Returns how every active DaemonSet of the view differs from converged,
 * and each of the checker's watches that is down (its view is then stale).
 */
export const divergencesOf = (
  view: ClusterView,
  runLabel: RunLabel,
  downPaths: readonly string[],
  now: number
): Divergence[] => [
  ...view
    .activeDaemonSets()
    .map((ds) => divergenceOf(view, ds, runLabel, now))
    .filter((d): d is Divergence => d !== undefined),
  ...downPaths.map((path) => ({
    daemonSet: '',
    detail: `the checker's watch of ${path} is down`,
  })),
];

/** The liveness violation of divergences that outlasted the bound. */
export const notConverged = (
  divergences: readonly Divergence[],
  timeoutMs: number,
  atMs: number
): Violation => {
  const [first] = divergences;
  return {
    invariant: 'converges-after-faults',
    atMs,
    ...(first?.daemonSet ? { daemonSet: first.daemonSet } : {}),
    ...(first?.node ? { node: first.node } : {}),
    detail: `not converged after ${timeoutMs} ms: ${divergences.map((d) => d.detail).join(' | ')}`,
  };
};

/**
 * Returns a divergence for each DaemonSet whose generation in the view is
 * below the one the runner's last write of it made (`written`, by name):
 * a view from before that write must not pass for converged.
 */
export const unseenWrites = (
  view: ClusterView,
  written: ReadonlyMap<string, number>
): Divergence[] =>
  [...written].flatMap(([name, generation]) => {
    // The view keys the run namespace's objects by name alone.
    const seen = view.daemonSets.get(name)?.metadata.generation ?? 0;
    return seen >= generation
      ? []
      : [
          {
            daemonSet: name,
            detail: `${name}: the checker sees generation ${seen}, the runner wrote ${generation}`,
          },
        ];
  });
