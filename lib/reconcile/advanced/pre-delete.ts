/**
 * Ports the planning half of Kruise's `syncWithPreparingDelete`
 * (pkg/controller/daemonset/daemonset_controller.go) with
 * `lifecycle.IsPodHooked` (pkg/util/lifecycle): before a pod of a DaemonSet
 * with a `lifecycle.preDelete` hook is deleted, it is marked
 * `lifecycle.apps.kruise.io/state: PreparingDelete` and held until the
 * user's controller removes the hook's labels or finalizers; then the next
 * sync deletes it.
 *
 * With `markPodNotReady`, a held pod is first taken out of service
 * (`executePodNotReadyPolicy`, lib/reconcile/advanced/pod-readiness.ts).
 *
 * Assumptions: `pods` is the sync's pod listing; a name missing from it was
 * deleted meanwhile and is dropped. Invariants: a hooked pod is never in the
 * returned deletes; a pod already PreparingDelete is not patched again, nor
 * one already held out of service.
 */
import type { LifecycleHook, Pod } from '../k8s/types.js';
import {
  PRE_DELETE_HOOK_KEY,
  planAddNotReadyKey,
  podConditionsPatch,
} from './pod-readiness.js';
import {
  isPreparingDelete,
  LIFECYCLE_STATE_LABEL,
  PREPARING_DELETE,
} from './rollout-controls.js';

/** Kruise's annotation recording when the lifecycle state last changed. */
export const LIFECYCLE_TIMESTAMP_ANNOTATION =
  'lifecycle.apps.kruise.io/timestamp';

/**
 * Returns whether the hook holds the pod (Kruise `IsPodHooked`): it carries
 * any of the hook's finalizers, or any of its labels with the same value.
 */
export const isPodHooked = (hook: LifecycleHook, pod: Pod): boolean => {
  const finalizers = pod.metadata?.finalizers ?? [];
  const labels = pod.metadata?.labels ?? {};
  return (
    (hook.finalizersHandler ?? []).some((f) => finalizers.includes(f)) ||
    Object.entries(hook.labelsHandler ?? {}).some(([k, v]) => labels[k] === v)
  );
};

/** What the preDelete gate decided for one round of deletes. */
export interface PreDeletePlan {
  /** Pods that may be deleted now. */
  podsToDelete: string[];
  /**
   * Hooked pods to take out of service first (pods/status strategic-merge
   * patches; only with `markPodNotReady`).
   */
  podsToMarkNotReady: { name: string; patch: string }[];
  /** Hooked pods to mark PreparingDelete (strategic-merge patch bodies). */
  podsToMark: { name: string; patch: string }[];
}

/** Returns which of `podsToDelete` go now and which the hook holds. */
export const planPreparingDelete = (
  hook: LifecycleHook | undefined,
  pods: readonly Pod[],
  podsToDelete: readonly string[],
  nowIso: string
): PreDeletePlan => {
  const plan: PreDeletePlan = {
    podsToDelete: [],
    podsToMarkNotReady: [],
    podsToMark: [],
  };
  if (hook === undefined) return { ...plan, podsToDelete: [...podsToDelete] };
  const byName = new Map(pods.map((p) => [p.metadata?.name ?? '', p]));
  for (const name of podsToDelete) {
    const pod = byName.get(name);
    if (pod === undefined) continue;
    if (!isPodHooked(hook, pod)) {
      plan.podsToDelete.push(name);
      continue;
    }
    const notReady = hook.markPodNotReady
      ? planAddNotReadyKey(pod, PRE_DELETE_HOOK_KEY, nowIso)
      : undefined;
    if (notReady !== undefined) {
      plan.podsToMarkNotReady.push({
        name,
        patch: podConditionsPatch(notReady),
      });
    }
    if (!isPreparingDelete(pod)) {
      plan.podsToMark.push({
        name,
        patch: JSON.stringify({
          metadata: {
            labels: { [LIFECYCLE_STATE_LABEL]: PREPARING_DELETE },
            annotations: { [LIFECYCLE_TIMESTAMP_ANNOTATION]: nowIso },
          },
        }),
      });
    }
  }
  return plan;
};
