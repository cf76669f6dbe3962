/**
 * Ports the pod predicates the DaemonSet controller uses:
 * `podutil.IsPodReady`, `podutil.IsPodAvailable` (k8s.io/kubernetes
 * pkg/api/v1/pod/util.go, `<=` boundary since kubernetes/kubernetes#132122),
 * `podutil.IsPodTerminal`, `util.IsPodUpdated` and `util.GetTemplateGeneration`
 * (pkg/controller/daemon/util/daemonset_util.go) and the
 * `podByCreationTimestampAndPhase` ordering (daemon_controller.go).
 */
import { nameOf } from './meta.js';
import type { DaemonSet, Pod } from './types.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  TEMPLATE_GENERATION_ANNOTATION,
  TEMPLATE_GENERATION_LABEL,
} from './types.js';

/** Returns the pod's Ready condition, if it has one. */
export const getPodReadyCondition = (pod: Pod) => getPodCondition(pod, 'Ready');

/** Upstream `podutil.GetPodCondition`: the pod's condition of `type`. */
export const getPodCondition = (pod: Pod, type: string) =>
  pod.status?.conditions?.find((c) => c.type === type);

/** Returns whether the pod carries the readiness gate of `conditionType`. */
export const hasReadinessGate = (pod: Pod, conditionType: string): boolean =>
  (pod.spec?.readinessGates ?? []).some(
    (g) => g.conditionType === conditionType
  );

/** Returns whether the pod's Ready condition is True. */
export const isPodReady = (pod: Pod): boolean =>
  getPodReadyCondition(pod)?.status === 'True';

/** Parses an RFC 3339 timestamp to epoch ms (NaN when absent). */
export const parseTime = (t: string | undefined): number =>
  t === undefined ? Number.NaN : Date.parse(t);

/**
 * Returns whether the pod has been Ready for at least `minReadySeconds` at
 * `nowMs` (upstream `IsPodAvailable`).
 */
export const isPodAvailable = (
  pod: Pod,
  minReadySeconds: number,
  nowMs: number
): boolean => {
  if (minReadySeconds === 0) return isPodReady(pod);
  const at = availableAtMs(pod, minReadySeconds);
  // Inclusive since kubernetes/kubernetes#132122 (2025).
  return at !== undefined && at <= nowMs;
};

/**
 * Returns when a Ready pod becomes available (its Ready transition plus
 * `minReadySeconds`), or undefined when it is not Ready or the transition
 * time is unknown.
 */
export const availableAtMs = (
  pod: Pod,
  minReadySeconds: number
): number | undefined => {
  if (!isPodReady(pod)) return undefined;
  const since = parseTime(getPodReadyCondition(pod)?.lastTransitionTime);
  return Number.isNaN(since) ? undefined : since + minReadySeconds * 1000;
};

/** Returns whether the pod reached a terminal phase (Succeeded or Failed). */
export const isPodTerminal = (pod: Pod): boolean =>
  pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/**
 * Returns the DaemonSet's template generation from the apps/v1 annotation;
 * `undefined` when absent or unparsable (upstream then ignores it).
 */
export const getTemplateGeneration = (ds: DaemonSet): string | undefined => {
  const raw = ds.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  return raw !== undefined && /^-?\d+$/.test(raw)
    ? String(BigInt(raw))
    : undefined;
};

/**
 * Returns whether the pod runs the current template: its hash label equals
 * `hash`, or its generation label equals the template generation.
 */
export const isPodUpdated = (
  pod: Pod,
  hash: string,
  templateGeneration: string | undefined
): boolean => {
  const labels = pod.metadata?.labels ?? {};
  const templateMatches =
    templateGeneration !== undefined &&
    labels[TEMPLATE_GENERATION_LABEL] === templateGeneration;
  const hashMatches =
    hash.length > 0 && labels[CONTROLLER_REVISION_HASH_LABEL] === hash;
  return hashMatches || templateMatches;
};

const hasNodeName = (pod: Pod): boolean => (pod.spec?.nodeName ?? '') !== '';

/**
 * Orders pods as upstream's `podByCreationTimestampAndPhase`: bound pods
 * first, then older creationTimestamp, ties broken by name.
 */
export const compareByCreationTimestampAndPhase = (a: Pod, b: Pod): number => {
  const aBound = hasNodeName(a);
  if (aBound !== hasNodeName(b)) return aBound ? -1 : 1;
  const ta = parseTime(a.metadata?.creationTimestamp) || 0;
  const tb = parseTime(b.metadata?.creationTimestamp) || 0;
  if (ta !== tb) return ta - tb;
  const na = nameOf(a);
  const nb = nameOf(b);
  return na < nb ? -1 : na > nb ? 1 : 0;
};

/** Returns a sorted copy (upstream `sort.Sort(podByCreationTimestampAndPhase)`). */
export const sortByCreationTimestampAndPhase = (pods: readonly Pod[]): Pod[] =>
  [...pods].sort(compareByCreationTimestampAndPhase);

/** Returns the pod's name ('' if unnamed). */
export const podName = (pod: Pod): string => nameOf(pod);
