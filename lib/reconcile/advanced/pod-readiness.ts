/**
 * Ports OpenKruise's pod readiness protocol as Advanced DaemonSet uses it
 * (pkg/util/podreadiness, and `executePodNotReadyPolicy` of
 * pkg/util/lifecycle): pods carry the readiness gate `KruisePodReady`,
 * whose condition is True while no one holds the pod out of service, and
 * False with the holders' keys in its message otherwise. A preDelete hook
 * with `markPodNotReady` adds its key before the pod is held, so the pod
 * stops serving before its deletion is even decided.
 *
 * Kruise injects the gate with its pod webhook and sets a missing condition
 * True with its `podreadiness` controller; with neither here, the reconciler
 * does both (spec/kruise-ads.md §4 bug 8: in Kruise `markPodNotReady` does
 * nothing without them). The gate goes only on pods created while the hook
 * asks for `markPodNotReady`, so other pods cost no extra status write.
 *
 * Invariants: a pod without the gate is never written; adding a key that is
 * present writes nothing; keys stay sorted and unique.
 */
import {
  getPodCondition,
  hasReadinessGate,
  isPodAvailable,
} from '../k8s/pod-util.js';
import type { DaemonSet, Pod, PodTemplateSpec } from '../k8s/types.js';
import {
  INPLACE_UPDATE_READY,
  isInPlaceIfPossible,
  isInPlaceReady,
  type PodCondition,
} from './in-place-update.js';

/** The readiness gate and condition of Kruise's pod readiness protocol. */
export const KRUISE_POD_READY = 'KruisePodReady';

/** One holder of a pod out of service (Kruise `podReadinessMessage`). */
export interface NotReadyKey {
  userAgent: string;
  key: string;
}

/** The key a preDelete hook with `markPodNotReady` holds pods by. */
export const PRE_DELETE_HOOK_KEY: NotReadyKey = {
  userAgent: 'Lifecycle',
  key: 'preDeleteHook',
};

/**
 * Returns the readiness gates the reconciler adds to the DaemonSet's new
 * pods: InPlaceUpdateReady for InPlaceIfPossible, KruisePodReady for a
 * preDelete hook with markPodNotReady.
 */
export const readinessGatesFor = (ds: DaemonSet): string[] => [
  ...(isInPlaceIfPossible(ds) ? [INPLACE_UPDATE_READY] : []),
  ...(ds.spec?.lifecycle?.preDelete?.markPodNotReady ? [KRUISE_POD_READY] : []),
];

/**
 * Returns the template with `gates` appended to its readiness gates (never
 * part of the revision: changing them creates no revision).
 */
export const withReadinessGates = (
  template: PodTemplateSpec,
  gates: readonly string[]
): PodTemplateSpec =>
  gates.length === 0
    ? template
    : {
        ...template,
        spec: {
          containers: [],
          ...template.spec,
          readinessGates: [
            ...(template.spec?.readinessGates ?? []),
            ...gates.map((conditionType) => ({ conditionType })),
          ],
        },
      };

/** Returns whether the pod carries the KruisePodReady readiness gate. */
export const hasKruisePodReadyGate = (pod: Pod): boolean =>
  hasReadinessGate(pod, KRUISE_POD_READY);

const keysOf = (pod: Pod): NotReadyKey[] => {
  const message = getPodCondition(pod, KRUISE_POD_READY)?.message;
  if (!message) return [];
  try {
    const keys: unknown = JSON.parse(message);
    return Array.isArray(keys) ? (keys as NotReadyKey[]) : [];
  } catch {
    return [];
  }
};

/** Go's string order (code units), not the locale's. */
const byteOrder = (a: string, b: string): number =>
  a < b ? -1 : a > b ? 1 : 0;

const sameKey = (a: NotReadyKey, b: NotReadyKey): boolean =>
  a.userAgent === b.userAgent && a.key === b.key;

/**
 * Returns the KruisePodReady condition a gated pod lacks (True: nobody
 * holds it), as Kruise's podreadiness controller sets it; else undefined.
 */
export const planPodReadyRefresh = (
  pod: Pod,
  nowIso: string
): PodCondition | undefined =>
  hasKruisePodReadyGate(pod) &&
  getPodCondition(pod, KRUISE_POD_READY) === undefined
    ? { type: KRUISE_POD_READY, status: 'True', lastTransitionTime: nowIso }
    : undefined;

/**
 * Returns the conditions that take the pod out of service for `key`
 * (Kruise `AddNotReadyKey`): KruisePodReady False listing every holder,
 * and Ready False at once when the containers are ready (the kubelet would
 * only notice later). Undefined when the pod has no gate or `key` already
 * holds it.
 */
export const planAddNotReadyKey = (
  pod: Pod,
  key: NotReadyKey,
  nowIso: string
): PodCondition[] | undefined => {
  const keys = keysOf(pod);
  if (!hasKruisePodReadyGate(pod) || keys.some((k) => sameKey(k, key))) {
    return undefined;
  }
  const sorted = [...keys, key].sort(
    (a, b) => byteOrder(a.userAgent, b.userAgent) || byteOrder(a.key, b.key)
  );
  const conditions: PodCondition[] = [
    {
      type: KRUISE_POD_READY,
      status: 'False',
      message: JSON.stringify(
        sorted.map((k) => ({ userAgent: k.userAgent, key: k.key }))
      ),
      lastTransitionTime: nowIso,
    },
  ];
  if (getPodCondition(pod, 'ContainersReady')?.status === 'True') {
    conditions.push({
      type: 'Ready',
      status: 'False',
      reason: 'ReadinessGatesNotReady',
      message: `the status of pod readiness gate "${KRUISE_POD_READY}" is not "True", but False`,
      lastTransitionTime: nowIso,
    });
  }
  return conditions;
};

/**
 * Returns whether the KruisePodReady gate lets the pod serve: no gate, or
 * its condition True. A missing condition holds the pod, as a kubelet
 * holds Ready (KWOK, which sets Ready regardless, needs this).
 */
export const isKruisePodReady = (pod: Pod): boolean =>
  !hasKruisePodReadyGate(pod) ||
  getPodCondition(pod, KRUISE_POD_READY)?.status === 'True';

/**
 * Returns whether a daemon pod serves (Kruise `isDaemonPodAvailable`):
 * upstream's availability, not in the middle of an in-place update, and
 * not held out of service through KruisePodReady.
 */
export const isDaemonPodAvailable = (
  pod: Pod,
  minReadySeconds: number,
  nowMs: number
): boolean =>
  isPodAvailable(pod, minReadySeconds, nowMs) &&
  isInPlaceReady(pod) &&
  isKruisePodReady(pod);

/** Returns the pods/status strategic-merge patch writing `conditions`. */
export const podConditionsPatch = (
  conditions: readonly PodCondition[]
): string => JSON.stringify({ status: { conditions } });
