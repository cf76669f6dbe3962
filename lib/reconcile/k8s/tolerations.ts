/**
 * Ports toleration handling: `v1.Toleration.ToleratesTaint` and
 * `MatchToleration` (k8s.io/api/core/v1/toleration.go),
 * `v1helper.FindMatchingUntoleratedTaint` and
 * `v1helper.AddOrUpdateTolerationInPodSpec` (pkg/apis/core/v1/helper), and
 * `util.AddOrUpdateDaemonPodTolerations`
 * (pkg/controller/daemon/util/daemonset_util.go).
 *
 * Assumptions / Invariants:
 * - The comparison operators behind the alpha gate
 *   `TaintTolerationComparisonOperators` (`Gt`/`Lt`) are off: like any
 *   unknown operator they never tolerate.
 * - Inputs are never mutated; specs come back as new objects.
 * - `AddOrUpdateTolerationInPodSpec` compares `*Toleration` with `Toleration`
 *   in `Semantic.DeepEqual`, which is always false (different types), so its
 *   "already present ⇒ unchanged" exit never fires: every matching
 *   toleration is replaced. An equal one is thus replaced by its equal.
 */
import type { PodSpec, Taint, Toleration } from './types.js';

/** Taint effects (v1.TaintEffect*). */
export const TaintEffect = {
  NoSchedule: 'NoSchedule',
  PreferNoSchedule: 'PreferNoSchedule',
  NoExecute: 'NoExecute',
} as const;

/** Taint the node lifecycle controller sets while the node is not Ready. */
export const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';
/** Taint the node lifecycle controller sets while the node is Unknown. */
export const TAINT_NODE_UNREACHABLE = 'node.kubernetes.io/unreachable';
/** Taint set by TaintNodesByCondition for DiskPressure. */
export const TAINT_NODE_DISK_PRESSURE = 'node.kubernetes.io/disk-pressure';
/** Taint set by TaintNodesByCondition for MemoryPressure. */
export const TAINT_NODE_MEMORY_PRESSURE = 'node.kubernetes.io/memory-pressure';
/** Taint set by TaintNodesByCondition for PIDPressure. */
export const TAINT_NODE_PID_PRESSURE = 'node.kubernetes.io/pid-pressure';
/** Taint set for `spec.unschedulable` (cordoned) nodes. */
export const TAINT_NODE_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
/** Taint set by TaintNodesByCondition for NetworkUnavailable. */
export const TAINT_NODE_NETWORK_UNAVAILABLE =
  'node.kubernetes.io/network-unavailable';

/**
 * Returns whether the toleration tolerates the taint (`ToleratesTaint`):
 * an empty effect matches every effect; an empty key matches every key;
 * `Exists` ignores the value; `''`/`Equal` compare it; any other operator
 * never tolerates.
 */
export const toleratesTaint = (
  toleration: Toleration,
  taint: Taint
): boolean => {
  const effect = toleration.effect ?? '';
  if (effect !== '' && effect !== taint.effect) return false;
  const key = toleration.key ?? '';
  if (key !== '' && key !== taint.key) return false;
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

/**
 * Returns the first taint that passes `inclusionFilter` (all taints when
 * omitted) and that no toleration tolerates, or undefined
 * (`FindMatchingUntoleratedTaint`).
 */
export const findMatchingUntoleratedTaint = (
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
  inclusionFilter: (taint: Taint) => boolean = () => true
): Taint | undefined =>
  (taints ?? []).find(
    (taint) =>
      inclusionFilter(taint) &&
      !(tolerations ?? []).some((t) => toleratesTaint(t, taint))
  );

/**
 * Returns whether two tolerations are the same by key, effect, operator and
 * value (`MatchToleration`; tolerationSeconds is not compared).
 */
export const matchToleration = (a: Toleration, b: Toleration): boolean =>
  (a.key ?? '') === (b.key ?? '') &&
  (a.effect ?? '') === (b.effect ?? '') &&
  (a.operator ?? '') === (b.operator ?? '') &&
  (a.value ?? '') === (b.value ?? '');

/**
 * Returns the spec with `toleration` in place of every toleration it matches
 * (dropping e.g. a user's tolerationSeconds), or appended when none matches
 * (`AddOrUpdateTolerationInPodSpec`).
 */
export const addOrUpdateTolerationInPodSpec = (
  spec: PodSpec,
  toleration: Toleration
): PodSpec => {
  const current = spec.tolerations ?? [];
  const matched = current.some((t) => matchToleration(toleration, t));
  const tolerations = matched
    ? current.map((t) =>
        matchToleration(toleration, t) ? { ...toleration } : t
      )
    : [...current, { ...toleration }];
  return { ...spec, tolerations };
};

const exists = (key: string, effect: string): Toleration => ({
  key,
  operator: 'Exists',
  effect,
});

/**
 * Returns the spec with the tolerations every daemon pod gets, in upstream
 * order, each `Exists` without value or tolerationSeconds: not-ready and
 * unreachable (NoExecute), disk/memory/pid pressure and unschedulable
 * (NoSchedule), and network-unavailable (NoSchedule) with hostNetwork
 * (`AddOrUpdateDaemonPodTolerations`).
 */
export const addOrUpdateDaemonPodTolerations = (spec: PodSpec): PodSpec => {
  const daemon = [
    exists(TAINT_NODE_NOT_READY, TaintEffect.NoExecute),
    exists(TAINT_NODE_UNREACHABLE, TaintEffect.NoExecute),
    exists(TAINT_NODE_DISK_PRESSURE, TaintEffect.NoSchedule),
    exists(TAINT_NODE_MEMORY_PRESSURE, TaintEffect.NoSchedule),
    exists(TAINT_NODE_PID_PRESSURE, TaintEffect.NoSchedule),
    exists(TAINT_NODE_UNSCHEDULABLE, TaintEffect.NoSchedule),
    ...(spec.hostNetwork === true
      ? [exists(TAINT_NODE_NETWORK_UNAVAILABLE, TaintEffect.NoSchedule)]
      : []),
  ];
  return daemon.reduce(addOrUpdateTolerationInPodSpec, spec);
};
