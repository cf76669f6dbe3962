/**
 * The I/O half of the own kind's in-place update (Kruise
 * `inPlaceUpdatePods` and `refreshUpdateStates`, spec/kruise-ads.md §2.8,
 * §2.9), around the pure planners of lib/reconcile/advanced/in-place-update.ts.
 */
import { toError } from '../errors.js';
import {
  canUpdateInPlace,
  hasInPlaceReadinessGate,
  planInPlaceUpdate,
  planRefreshUpdateState,
} from '../reconcile/advanced/in-place-update.js';
import {
  planPodReadyRefresh,
  podConditionsPatch,
} from '../reconcile/advanced/pod-readiness.js';
import { getBurstReplicas } from '../reconcile/advanced/rollout-controls.js';
import { EventReason } from '../reconcile/events.js';
import { labelOf, rfc3339 } from '../reconcile/k8s/meta.js';
import type {
  ControllerRevision,
  Pod,
  PodTemplateSpec,
} from '../reconcile/k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../reconcile/k8s/types.js';
import { revisionTemplate } from '../reconcile/revision-hash.js';
import type { SyncContext } from './context.js';

const nowIso = (ctx: SyncContext): string => rfc3339(ctx.deps.clock.now());

/**
 * Marks every claimed pod whose in-place update finished (or that never had
 * one) ready for service, InPlaceUpdateReady True, and sets KruisePodReady
 * True where the gate has no condition yet, in one status write per pod.
 * Runs every sync, paused or not; new gated pods become Ready this way.
 */
export const refreshUpdateStates = async (ctx: SyncContext): Promise<void> => {
  const now = nowIso(ctx);
  for (const pod of ctx.read.pods) {
    const conditions = [
      planRefreshUpdateState(pod, now),
      planPodReadyRefresh(pod, now),
    ].filter((c) => c !== undefined);
    if (conditions.length === 0) continue;
    await ctx.deps.podControl.patchPodStatus(
      ctx.dsKey.namespace,
      pod.metadata?.name as string,
      { type: 'strategic', body: podConditionsPatch(conditions) }
    );
  }
};

/**
 * Updates in place the pods of `podsToDelete` that can be (the readiness
 * gate, an old revision whose template differs only in images), at most a
 * burst of them; returns the pods still to delete. Pods that qualify beyond
 * the burst wait for the next round, neither updated nor deleted.
 */
export const updatePodsInPlace = async (
  ctx: SyncContext,
  podsToDelete: readonly string[],
  old: readonly ControllerRevision[],
  hash: string,
  desired: number
): Promise<string[]> => {
  const byName = new Map(ctx.read.pods.map((p) => [p.metadata?.name, p]));
  const current = ctx.ds.spec?.template as PodTemplateSpec;
  const remaining: string[] = [];
  const updates: { name: string; images: Map<string, string> }[] = [];
  for (const name of podsToDelete) {
    const pod = byName.get(name);
    const revision = old.find(
      (r) =>
        labelOf(r, CONTROLLER_REVISION_HASH_LABEL) ===
        pod?.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL]
    );
    const images =
      pod && revision && hasInPlaceReadinessGate(pod)
        ? canUpdateInPlace(revisionTemplate(revision), current)
        : undefined;
    if (images === undefined) remaining.push(name);
    else updates.push({ name, images });
  }
  const burst = getBurstReplicas(ctx.ds, desired);
  const now = nowIso(ctx);
  const ns = ctx.dsKey.namespace;
  const results = await Promise.allSettled(
    updates.slice(0, burst).map(async ({ name, images }) => {
      const pod = byName.get(name) as Pod;
      const plan = planInPlaceUpdate(pod, images, hash, now);
      await ctx.deps.podControl.patchPodStatus(ns, name, {
        type: 'strategic',
        body: plan.statusPatch,
      });
      await ctx.deps.podControl.patchPod(ns, name, {
        type: 'strategic',
        body: plan.podPatch,
      });
      await ctx.deps.events.record(
        ctx.ds,
        'Normal',
        EventReason.SuccessfulUpdatePodInPlace,
        `successfully update pod ${name} in-place`
      );
    })
  );
  const errors = results.flatMap((r) =>
    r.status === 'rejected' ? [toError(r.reason)] : []
  );
  if (errors.length > 0) {
    await ctx.deps.events.record(
      ctx.ds,
      'Warning',
      EventReason.FailedUpdatePodInPlace,
      `failed to update pods in-place: ${errors.map((e) => e.message).join('; ')}`
    );
    throw new AggregateError(
      errors,
      `updating pods of ${ctx.key} in place: ${errors.map((e) => e.message).join('; ')}`
    );
  }
  return remaining;
};
