/**
 * Whether a node should run, or may keep running, a DaemonSet's pod: an
 * independent port of upstream `NodeShouldRunDaemonPod` and `predicates`
 * (pkg/controller/daemon/daemon_controller.go), `NewPod` with
 * `AddOrUpdateDaemonPodTolerations` (pkg/controller/daemon/util), the
 * required node affinity of component-helpers `nodeaffinity` and
 * `Toleration.ToleratesTaint`. Written from upstream, not from lib/: the
 * checker must not share the product's mistakes.
 */
import type {
  DaemonSet,
  Node,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  Taint,
  Toleration,
} from './kube-objects.js';

/** The label that makes a node part of the campaign run. */
export interface RunLabel {
  key: string;
  value: string;
}

/** Upstream's two answers, plus why the node is refused. */
export interface NodeVerdict {
  /** A new daemon pod belongs on the node (upstream shouldRun). */
  shouldRun: boolean;
  /** An existing daemon pod may stay (upstream shouldContinueRunning). */
  shouldContinueRunning: boolean;
  /** Why shouldRun is false. */
  reason?: string;
}

/** Tolerations the DaemonSet controller adds to every daemon pod. */
const DAEMON_TOLERATIONS: readonly Toleration[] = [
  {
    key: 'node.kubernetes.io/not-ready',
    operator: 'Exists',
    effect: 'NoExecute',
  },
  {
    key: 'node.kubernetes.io/unreachable',
    operator: 'Exists',
    effect: 'NoExecute',
  },
  {
    key: 'node.kubernetes.io/disk-pressure',
    operator: 'Exists',
    effect: 'NoSchedule',
  },
  {
    key: 'node.kubernetes.io/memory-pressure',
    operator: 'Exists',
    effect: 'NoSchedule',
  },
  {
    key: 'node.kubernetes.io/pid-pressure',
    operator: 'Exists',
    effect: 'NoSchedule',
  },
  {
    key: 'node.kubernetes.io/unschedulable',
    operator: 'Exists',
    effect: 'NoSchedule',
  },
];

/** Added only to hostNetwork pods (upstream: `if spec.HostNetwork`). */
const HOST_NETWORK_TOLERATION: Toleration = {
  key: 'node.kubernetes.io/network-unavailable',
  operator: 'Exists',
  effect: 'NoSchedule',
};

/** Returns whether `toleration` tolerates `taint` (upstream ToleratesTaint). */
export const toleratesTaint = (toleration: Toleration, taint: Taint) => {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
};

const matchesRequirement = (
  value: string | undefined,
  req: NodeSelectorRequirement
): boolean => {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      const have = Number.parseInt(value ?? '', 10);
      const bound = Number.parseInt(values[0] ?? '', 10);
      if (Number.isNaN(have) || Number.isNaN(bound)) return false;
      return req.operator === 'Gt' ? have > bound : have < bound;
    }
    default:
      // Upstream ignores the parse error and the term does not match.
      return false;
  }
};

/** A term with neither expressions nor fields matches nothing (upstream). */
const matchesTerm = (node: Node, term: NodeSelectorTerm): boolean => {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  return (
    expressions.every((e) => matchesRequirement(labels[e.key], e)) &&
    fields.every(
      (f) =>
        f.key === 'metadata.name' && matchesRequirement(node.metadata.name, f)
    )
  );
};

/** Returns why the template's node constraints refuse the node, if they do. */
const nodeConstraintsRefusal = (
  node: Node,
  ds: DaemonSet
): string | undefined => {
  const spec = ds.spec.template.spec ?? {};
  if (spec.nodeName && spec.nodeName !== node.metadata.name) {
    return `template nodeName is ${spec.nodeName}`;
  }
  const labels = node.metadata.labels ?? {};
  for (const [key, value] of Object.entries(spec.nodeSelector ?? {})) {
    if (labels[key] !== value) return `nodeSelector ${key}=${value} unmet`;
  }
  const required =
    spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (
    required &&
    !(required.nodeSelectorTerms ?? []).some((t) => matchesTerm(node, t))
  ) {
    return 'required node affinity unmet';
  }
  return undefined;
};

const untoleratedTaint = (
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
  effects: readonly string[]
): Taint | undefined =>
  taints.find(
    (taint) =>
      effects.includes(taint.effect) &&
      !tolerations.some((t) => toleratesTaint(t, taint))
  );

const describeTaint = (t: Taint) =>
  `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;

/**
 * Returns upstream's (shouldRun, shouldContinueRunning) for the node and
 * DaemonSet; a node without the run's label is treated like one failing the
 * DaemonSet's selector, since the campaign's DaemonSets target run nodes.
 */
export const nodeShouldRunDaemonPod = (
  node: Node,
  ds: DaemonSet,
  runLabel: RunLabel
): NodeVerdict => {
  if (node.metadata.labels?.[runLabel.key] !== runLabel.value) {
    return refused(
      `node lacks the run label ${runLabel.key}=${runLabel.value}`
    );
  }
  const refusal = nodeConstraintsRefusal(node, ds);
  if (refusal) return refused(refusal);
  const spec = ds.spec.template.spec ?? {};
  const tolerations = [
    ...(spec.tolerations ?? []),
    ...DAEMON_TOLERATIONS,
    ...(spec.hostNetwork ? [HOST_NETWORK_TOLERATION] : []),
  ];
  const taints = node.spec?.taints ?? [];
  const blocking = untoleratedTaint(taints, tolerations, [
    'NoSchedule',
    'NoExecute',
  ]);
  if (!blocking) return { shouldRun: true, shouldContinueRunning: true };
  const evicting = untoleratedTaint(taints, tolerations, ['NoExecute']);
  return {
    shouldRun: false,
    shouldContinueRunning: evicting === undefined,
    reason: `untolerated taint ${describeTaint(evicting ?? blocking)}`,
  };
};

const refused = (reason: string): NodeVerdict => ({
  shouldRun: false,
  shouldContinueRunning: false,
  reason,
});
