/**
 * Ports toleration handling: `v1.Toleration.ToleratesTaint`,
 * `v1helper.FindMatchingUntoleratedTaint`, `v1helper.AddOrUpdateTolerationInPodSpec`
 * (k8s.io/api and pkg/apis/core/v1/helper) and the DaemonSet's own
 * `util.AddOrUpdateDaemonPodTolerations`
 * (pkg/controller/daemon/util/daemonset_util.go).
 *
 * Invariants: the comparison operators behind the alpha gate
 * `TaintTolerationComparisonOperators` are off (they never tolerate); inputs
 * are never mutated.
 */
import type { PodSpec, Taint, Toleration } from './types.js';

export const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_NODE_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_NODE_DISK_PRESSURE = 'node.kubernetes.io/disk-pressure';
export const TAINT_NODE_MEMORY_PRESSURE = 'node.kubernetes.io/memory-pressure';
export const TAINT_NODE_PID_PRESSURE = 'node.kubernetes.io/pid-pressure';
export const TAINT_NODE_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
export const TAINT_NODE_NETWORK_UNAVAILABLE =
  'node.kubernetes.io/network-unavailable';

/** Returns whether the toleration tolerates the taint. */
export const toleratesTaint = (t: Toleration, taint: Taint): boolean => {
  if ((t.effect ?? '') !== '' && t.effect !== taint.effect) return false;
  if ((t.key ?? '') !== '' && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
};

/** Returns the first taint passing `include` that no toleration tolerates. */
export const findMatchingUntoleratedTaint = (
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
  include: (taint: Taint) => boolean
): Taint | undefined =>
  (taints ?? []).find(
    (taint) =>
      include(taint) &&
      !(tolerations ?? []).some((t) => toleratesTaint(t, taint))
  );

/** Returns whether two tolerations are the same by key, effect, operator, value. */
const matchToleration = (a: Toleration, b: Toleration): boolean =>
  (a.key ?? '') === (b.key ?? '') &&
  (a.effect ?? '') === (b.effect ?? '') &&
  (a.operator ?? '') === (b.operator ?? '') &&
  (a.value ?? '') === (b.value ?? '');

/**
 * Returns the spec with `toleration` replacing every toleration it matches
 * (dropping e.g. a user's tolerationSeconds), or appended if none does.
 */
export const addOrUpdateTolerationInPodSpec = (
  spec: PodSpec,
  toleration: Toleration
): PodSpec => {
  const current = spec.tolerations ?? [];
  let updated = false;
  const next = current.map((t) => {
    if (!matchToleration(toleration, t)) return t;
    updated = true;
    return { ...toleration };
  });
  if (!updated) next.push({ ...toleration });
  return { ...spec, tolerations: next };
};

const exists = (key: string, effect: string): Toleration => ({
  key,
  operator: 'Exists',
  effect,
});

/**
 * Returns the spec with the tolerations every daemon pod gets: not-ready and
 * unreachable (NoExecute), disk/memory/pid pressure and unschedulable
 * (NoSchedule), and network-unavailable (NoSchedule) with hostNetwork.
 */
export const addOrUpdateDaemonPodTolerations = (spec: PodSpec): PodSpec => {
  const daemon = [
    exists(TAINT_NODE_NOT_READY, 'NoExecute'),
    exists(TAINT_NODE_UNREACHABLE, 'NoExecute'),
    exists(TAINT_NODE_DISK_PRESSURE, 'NoSchedule'),
    exists(TAINT_NODE_MEMORY_PRESSURE, 'NoSchedule'),
    exists(TAINT_NODE_PID_PRESSURE, 'NoSchedule'),
    exists(TAINT_NODE_UNSCHEDULABLE, 'NoSchedule'),
    ...(spec.hostNetwork
      ? [exists(TAINT_NODE_NETWORK_UNAVAILABLE, 'NoSchedule')]
      : []),
  ];
  return daemon.reduce(addOrUpdateTolerationInPodSpec, spec);
};
