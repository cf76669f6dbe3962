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

/** Returns how the node stands against a requirement on `key`. */
const nodeHas = (what: string, key: string, value: string | undefined) =>
  value === undefined
    ? `node has no ${what} ${key}`
    : `node has ${key}=${value}`;

/** Returns `key Op [v1,v2]`, as the requirement was written. */
const describeRequirement = (r: NodeSelectorRequirement): string =>
  `${r.key} ${r.operator}${r.values && r.values.length > 0 ? ` [${r.values.join(',')}]` : ''}`;

/** A parsed requirement: returns why the node fails it, or undefined. */
type Check = (node: Node, fields: NodeFields) => string | undefined;

/**
 * Returns a check of one field requirement
 * (`nodeSelectorRequirementsAsFieldSelector`).
 *
 * @throws Error on a parse error (operator, value count).
 */
const parseFieldRequirement = (r: NodeSelectorRequirement): Check => {
  const values = r.values ?? [];
  if (r.operator !== 'In' && r.operator !== 'NotIn') {
    throw new Error(`field selector operator "${r.operator}" not supported`);
  }
  const [value] = values;
  if (values.length !== 1 || value === undefined) {
    throw new Error(`field selector "${r.key}" must have one element`);
  }
  const want = r.operator === 'In';
  return (_node, fields) =>
    ((fields[r.key] ?? '') === value) === want
      ? undefined
      : `${describeRequirement(r)}: ${nodeHas('field', r.key, fields[r.key])}`;
};

/** Returns a check of one label requirement. @throws Error on a parse error. */
const parseLabelRequirement = (r: NodeSelectorRequirement): Check => {
  const requirement = newRequirement(r.key, r.operator, r.values ?? []);
  return (node) => {
    const labels = node.metadata?.labels;
    return requirementMatches(requirement, labels)
      ? undefined
      : `${describeRequirement(r)}: ${nodeHas('label', r.key, labels?.[r.key])}`;
  };
};

/**
 * Returns the term's check — why a node fails it, or undefined when it
 * matches — or the reason it never matches: empty, or it does not parse
 * (`newNodeSelectorTerm` + `nodeSelectorTerm.match`).
 */
const parseTerm = (term: NodeSelectorTerm): Check | string => {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) {
    return 'empty (never matches)';
  }
  let labelChecks: Check[];
  let fieldChecks: Check[];
  try {
    labelChecks = expressions.map(parseLabelRequirement);
    fieldChecks = fields.map(parseFieldRequirement);
  } catch (e) {
    return `does not parse (never matches): ${(e as Error).message}`;
  }
  return (node, nodeFields) => {
    for (const check of labelChecks) {
      const failed = check(node, nodeFields);
      if (failed !== undefined) return failed;
    }
    // A node without a name has no fields: matchFields are skipped.
    if (Object.keys(nodeFields).length === 0) return undefined;
    for (const check of fieldChecks) {
      const failed = check(node, nodeFields);
      if (failed !== undefined) return failed;
    }
    return undefined;
  };
};

/** Why a node is not selected, or undefined when it is. */
export type NodeMismatch = (node: Node) => string | undefined;

/**
 * Returns the spec's nodeSelector and required node affinity as one check,
 * parsed once: why a node is not selected — the first unmatched nodeSelector
 * entry, or each term's first failing requirement — or undefined when both
 * select it (`GetRequiredNodeAffinity(pod)`, then `.Match(node)` per node,
 * parse errors ignored).
 */
export function requiredNodeAffinityMatcher(spec: PodSpec): NodeMismatch {
  const selector = Object.entries(spec.nodeSelector ?? {});
  const required =
    spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const terms =
    required === undefined || required === null
      ? undefined
      : (required.nodeSelectorTerms ?? []).map(parseTerm);
  return (node) => {
    const labels = node.metadata?.labels ?? {};
    for (const [key, value] of selector) {
      if (!Object.hasOwn(labels, key) || labels[key] !== value) {
        return `nodeSelector ${key}=${value}: ${nodeHas('label', key, Object.hasOwn(labels, key) ? labels[key] : undefined)}`;
      }
    }
    if (terms === undefined) return undefined;
    if (terms.length === 0) {
      return 'required node affinity has no terms (matches no node)';
    }
    const fields = extractNodeFields(node);
    const failures: string[] = [];
    for (const [i, check] of terms.entries()) {
      const failed = typeof check === 'string' ? check : check(node, fields);
      if (failed === undefined) return undefined;
      failures.push(`term ${i + 1}: ${failed}`);
    }
    return `required node affinity: no term matches (${failures.join('; ')})`;
  };
}

/**
 * Returns why the pod spec's nodeSelector or required node affinity does
 * not select the node, or undefined when both select it
 * (`requiredNodeAffinityMatcher(spec)(node)`).
 *
 * @example
 * requiredNodeAffinityMismatch({ containers: [], nodeSelector: { a: 'b' } },
 *   { metadata: { name: 'n' } }); // 'nodeSelector a=b: node has no label a'
 */
export const requiredNodeAffinityMismatch = (
  spec: PodSpec,
  node: Node
): string | undefined => requiredNodeAffinityMatcher(spec)(node);

/**
 * Returns whether the pod spec's nodeSelector and required node affinity
 * both select the node (`GetRequiredNodeAffinity(pod).Match(node)`, parse
 * errors ignored).
 *
 * @example
 * requiredNodeAffinityMatches({ containers: [], nodeSelector: { a: 'b' } },
 *   { metadata: { name: 'n', labels: { a: 'b' } } }); // true
 */
export const requiredNodeAffinityMatches = (
  spec: PodSpec,
  node: Node
): boolean => requiredNodeAffinityMismatch(spec, node) === undefined;

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
