/**
 * Ports required node affinity as the DaemonSet controller evaluates it:
 * `nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)` with its
 * `LazyErrorNodeSelector` (k8s.io/component-helpers/scheduling/corev1/
 * nodeaffinity/nodeaffinity.go), plus `util.GetTargetNodeName` and
 * `util.ReplaceDaemonSetPodNodeNameNodeAffinity`
 * (pkg/controller/daemon/util/daemonset_util.go).
 *
 * Assumptions / Invariants:
 * - `spec.nodeSelector` (exact key=value, no validation) and the required
 *   terms must both match; required terms are ORed, a term's
 *   `matchExpressions` and `matchFields` ANDed.
 * - An empty term, or a term with a parse error, never matches; the other
 *   terms still can ("parse errors ignored for backwards compatibility").
 *   Required affinity with no terms matches nothing.
 * - `matchFields` know one field, `metadata.name` (`extractNodeFields`);
 *   another key reads as ''. Only `In`/`NotIn` with exactly one value parse.
 *   A node without a name has no fields, so `matchFields` are skipped.
 */
import { newRequirement, requirementMatches } from './label-selector.js';
import { nameOf } from './meta.js';
import type {
  Affinity,
  Node,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  Pod,
  PodSpec,
} from './types.js';

/** The only node field a node selector can read (`metav1.ObjectNameField`). */
export const OBJECT_NAME_FIELD = 'metadata.name';

type NodeFields = Readonly<Record<string, string>>;

/** `extractNodeFields`: `metadata.name` when the node has a name. */
const extractNodeFields = (node: Node): NodeFields => {
  const name = nameOf(node);
  return name === '' ? {} : { [OBJECT_NAME_FIELD]: name };
};

/**
 * Returns a check of one field requirement
 * (`nodeSelectorRequirementsAsFieldSelector`).
 *
 * @throws Error on a parse error (operator, value count).
 */
const parseFieldRequirement = (
  r: NodeSelectorRequirement
): ((fields: NodeFields) => boolean) => {
  const values = r.values ?? [];
  if (r.operator !== 'In' && r.operator !== 'NotIn') {
    throw new Error(`field selector operator "${r.operator}" not supported`);
  }
  const [value] = values;
  if (values.length !== 1 || value === undefined) {
    throw new Error(`field selector "${r.key}" must have one element`);
  }
  const equal = (fields: NodeFields) => (fields[r.key] ?? '') === value;
  return r.operator === 'In' ? equal : (fields) => !equal(fields);
};

/**
 * Returns the term's matcher, or undefined when the term is empty or does
 * not parse (`newNodeSelectorTerm` + `nodeSelectorTerm.match`).
 */
const parseTerm = (
  term: NodeSelectorTerm
): ((node: Node) => boolean) | undefined => {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return undefined;
  try {
    const labels = expressions.map((e) =>
      newRequirement(e.key, e.operator, e.values ?? [])
    );
    const checks = fields.map(parseFieldRequirement);
    return (node) => {
      const nodeLabels = node.metadata?.labels;
      if (!labels.every((r) => requirementMatches(r, nodeLabels))) {
        return false;
      }
      const nodeFields = extractNodeFields(node);
      return (
        Object.keys(nodeFields).length === 0 ||
        checks.every((check) => check(nodeFields))
      );
    };
  } catch {
    return undefined;
  }
};

/**
 * Returns whether the pod spec's nodeSelector and required node affinity
 * both select the node (`GetRequiredNodeAffinity(pod).Match(node)`, parse
 * errors ignored).
 *
 * @example
 * requiredNodeAffinityMatches({ containers: [], nodeSelector: { a: 'b' } },
 *   { metadata: { name: 'n', labels: { a: 'b' } } }); // true
 */
export function requiredNodeAffinityMatches(
  spec: PodSpec,
  node: Node
): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [key, value] of Object.entries(spec.nodeSelector ?? {})) {
    if (!Object.hasOwn(labels, key) || labels[key] !== value) return false;
  }
  const required =
    spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required === undefined || required === null) return true;
  return (required.nodeSelectorTerms ?? []).some(
    (term) => parseTerm(term)?.(node) === true
  );
}

/**
 * Returns the node a daemon pod targets: `spec.nodeName`, else the single
 * value of the first `matchFields metadata.name In` requirement of its
 * required node affinity; undefined where upstream `GetTargetNodeName`
 * returns an error (no affinity, no terms, no such requirement, or a
 * requirement with other than one value).
 */
export function getTargetNodeName(pod: Pod): string | undefined {
  const nodeName = pod.spec?.nodeName ?? '';
  if (nodeName !== '') return nodeName;
  const terms =
    pod.spec?.affinity?.nodeAffinity
      ?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const term of terms) {
    for (const exp of term.matchFields ?? []) {
      if (exp.key === OBJECT_NAME_FIELD && exp.operator === 'In') {
        const values = exp.values ?? [];
        return values.length === 1 ? values[0] : undefined;
      }
    }
  }
  return undefined;
}

/**
 * Returns a copy of the affinity whose required node affinity is exactly one
 * term `matchFields metadata.name In [nodeName]`: created when absent, all
 * existing required terms replaced otherwise; preferred node affinity and
 * pod (anti-)affinity are kept (`ReplaceDaemonSetPodNodeNameNodeAffinity`).
 */
export function replaceDaemonSetPodNodeNameNodeAffinity(
  affinity: Affinity | undefined,
  nodeName: string
): Affinity {
  const nodeSelectorTerms = [
    {
      matchFields: [
        { key: OBJECT_NAME_FIELD, operator: 'In', values: [nodeName] },
      ],
    },
  ];
  const nodeAffinity = affinity?.nodeAffinity ?? undefined;
  const required =
    nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? undefined;
  return {
    ...affinity,
    nodeAffinity: {
      ...nodeAffinity,
      requiredDuringSchedulingIgnoredDuringExecution: {
        ...required,
        nodeSelectorTerms,
      },
    },
  };
}
