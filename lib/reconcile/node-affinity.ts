/**
 * Ports required node affinity as the DaemonSet controller evaluates it:
 * `nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)` with
 * `LazyErrorNodeSelector` (k8s.io/component-helpers/scheduling/corev1/
 * nodeaffinity), plus `util.GetTargetNodeName` and
 * `util.ReplaceDaemonSetPodNodeNameNodeAffinity`
 * (pkg/controller/daemon/util/daemonset_util.go).
 *
 * Invariants: `spec.nodeSelector` and the required terms must both match;
 * terms are ORed; an empty term or a term with a parse error never matches,
 * other terms still can ("parse errors are ignored for backwards
 * compatibility"); no terms ⇒ no match.
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

/** The only node field a selector may use. */
export const OBJECT_NAME_FIELD = 'metadata.name';

/** Returns whether one term's requirements all hold; false on parse errors. */
const termMatches = (term: NodeSelectorTerm, node: Node): boolean => {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  try {
    const requirements = expressions.map((e) =>
      newRequirement(e.key, e.operator, e.values ?? [])
    );
    const fieldChecks = fields.map(parseFieldRequirement);
    const labels = node.metadata?.labels;
    if (!requirements.every((r) => requirementMatches(r, labels))) {
      return false;
    }
    const name = nameOf(node);
    // Upstream skips field requirements when the node has no fields.
    return name === '' || fieldChecks.every((check) => check(name));
  } catch {
    return false;
  }
};

/** Returns a check of `metadata.name` (other keys read as the empty value). */
const parseFieldRequirement = (
  r: NodeSelectorRequirement
): ((nodeName: string) => boolean) => {
  const [value] = r.values ?? [];
  if ((r.values ?? []).length !== 1 || value === undefined) {
    throw new Error('field selector requirement must have one value');
  }
  const read = (nodeName: string) =>
    r.key === OBJECT_NAME_FIELD ? nodeName : '';
  switch (r.operator) {
    case 'In':
      return (n) => read(n) === value;
    case 'NotIn':
      return (n) => read(n) !== value;
    default:
      throw new Error(`"${r.operator}" is not a valid field selector operator`);
  }
};

/**
 * Returns whether the pod spec's nodeSelector and required node affinity
 * select the node.
 */
export const requiredNodeAffinityMatches = (
  spec: PodSpec,
  node: Node
): boolean => {
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) {
    if (!Object.hasOwn(labels, k) || labels[k] !== v) return false;
  }
  const required =
    spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required === undefined || required === null) return true;
  return required.nodeSelectorTerms.some((t) => termMatches(t, node));
};

/**
 * Returns the node a daemon pod targets: `spec.nodeName`, else the single
 * value of its `matchFields metadata.name In` requirement; undefined where
 * upstream returns an error.
 */
export const getTargetNodeName = (pod: Pod): string | undefined => {
  if ((pod.spec?.nodeName ?? '') !== '') return pod.spec?.nodeName;
  const terms =
    pod.spec?.affinity?.nodeAffinity
      ?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const term of terms) {
    for (const exp of term.matchFields ?? []) {
      if (exp.key === OBJECT_NAME_FIELD && exp.operator === 'In') {
        return exp.values?.length === 1 ? exp.values[0] : undefined;
      }
    }
  }
  return undefined;
};

/**
 * Returns the affinity with its required node affinity replaced by one term
 * `matchFields metadata.name In [nodeName]`; preferred terms and pod
 * (anti-)affinity are kept.
 */
export const replaceDaemonSetPodNodeNameNodeAffinity = (
  affinity: Affinity | undefined,
  nodeName: string
): Affinity => {
  const required = {
    nodeSelectorTerms: [
      {
        matchFields: [
          { key: OBJECT_NAME_FIELD, operator: 'In', values: [nodeName] },
        ],
      },
    ],
  };
  return {
    ...affinity,
    nodeAffinity: {
      ...affinity?.nodeAffinity,
      requiredDuringSchedulingIgnoredDuringExecution: required,
    },
  };
};
