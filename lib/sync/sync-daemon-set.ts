/**
 * The one orchestrator: upstream `syncDaemonSet` and `updateDaemonSet`
 * (pkg/controller/daemon/daemon_controller.go), in upstream's order —
 * read → history → (expectations unmet ⇒ status only) → manage →
 * rollingUpdate → cleanupHistory → status. It never asks which event woke it.
 */

import { ApiErrorReason, isApiError, toError } from '../errors.js';
import { parseDaemonSetKey } from '../keys.js';
import type { FleetMemberRecord } from '../ports/index.js';
import { isInPlaceIfPossible } from '../reconcile/advanced/in-place-update.js';
import { isDaemonSetPaused } from '../reconcile/advanced/rollout-controls.js';
import { validateDaemonSetSpec } from '../reconcile/advanced/validate-daemon-set-spec.js';
import { EventReason } from '../reconcile/events.js';
import { isEmptyLabelSelector } from '../reconcile/k8s/label-selector.js';
import { labelOf } from '../reconcile/k8s/meta.js';
import type { ControllerRevision, Node } from '../reconcile/k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../reconcile/k8s/types.js';
import { placementOnce } from '../reconcile/node-should-run.js';
import { planManage } from '../reconcile/pods-should-be-on-node.js';
import { planRollingUpdate } from '../reconcile/rolling-update.js';
import { nodesToDaemonPods } from './claim.js';
import type { SyncContext, SyncDeps, SyncRead } from './context.js';
import {
  loadFailedPodBackoff,
  saveFailedPodBackoff,
} from './failed-pod-backoff.js';
import {
  heldByFleet,
  heldCreationSource,
  readFleetMember,
  reportToFleet,
} from './fleet-hold.js';
import { cleanupHistory, constructHistory } from './history.js';
import { refreshUpdateStates, updatePodsInPlace } from './in-place.js';
import { rollOnDelete } from './roll-on-delete.js';
import { syncNodes } from './sync-nodes.js';
import { reportInvalidSpec, updateDaemonSetStatus } from './update-status.js';

/** What the queue should do after a successful sync, and what it read. */
export interface SyncResult {
  /** Sync this key again after this many milliseconds. */
  requeueAfterMs?: number;
  /** The cluster state the sync acted on (absent: no DaemonSet). */
  read?: SyncRead;
}

/** Returns the result of a sync that read `read`. */
const resultOf = (
  read: SyncRead,
  requeueAfterMs: number | undefined
): SyncResult =>
  requeueAfterMs === undefined ? { read } : { requeueAfterMs, read };

const minDefined = (
  a: number | undefined,
  b: number | undefined
): number | undefined =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b);

/**
 * Runs `manage`, creating within the member's fleet hold; returns the
 * requeue delay failed-pod backoff asks for.
 */
const manage = async (
  ctx: SyncContext,
  nodes: readonly Node[],
  hash: string,
  held: { member?: FleetMemberRecord; old: readonly ControllerRevision[] }
): Promise<number | undefined> => {
  const byNode = await nodesToDaemonPods(ctx, false);
  const source = heldCreationSource(ctx.ds, held.member, hash, {
    nodes,
    placement: ctx.placement,
    old: held.old,
    byNode,
  });
  const input = {
    ds: ctx.ds,
    hash,
    nodeToDaemonPods: byNode,
    nowMs: ctx.deps.clock.now(),
    backoff: await loadFailedPodBackoff(ctx, nodes, byNode),
    placement: ctx.placement,
  };
  const plan = planManage(nodes, input);
  await saveFailedPodBackoff(ctx, plan.backoffUpdates);
  for (const e of plan.events) {
    await ctx.deps.events.record(ctx.ds, e.type, e.reason, e.message);
  }
  await syncNodes(ctx, plan, hash, source);
  return plan.requeueAfterMs;
};

/**
 * Upstream `updateDaemonSet`: manage, then roll (unless the own kind's
 * rollout is paused), then prune history.
 */
const updateDaemonSet = async (
  ctx: SyncContext,
  nodes: readonly Node[],
  hash: string,
  old: readonly ControllerRevision[]
): Promise<number | undefined> => {
  const member = await readFleetMember(ctx);
  const requeueAfterMs = await manage(ctx, nodes, hash, { member, old });
  // Roll only when manage() had nothing in flight.
  if (!(await ctx.deps.expectations.satisfiedExpectations(ctx.key))) {
    await cleanupHistory(ctx, old);
    return requeueAfterMs;
  }
  const byNode = await nodesToDaemonPods(ctx, false);
  await refreshUpdateStates(ctx);
  let rollRequeueMs: number | undefined;
  if (
    ctx.ds.spec?.updateStrategy?.type === 'RollingUpdate' &&
    !isDaemonSetPaused(ctx.ds)
  ) {
    const plan = planRollingUpdate(
      heldByFleet(ctx.ds, member, hash, nodes, ctx.placement),
      nodes,
      byNode,
      hash,
      ctx.deps.clock.now(),
      ctx.placement
    );
    const podsToDelete = isInPlaceIfPossible(ctx.ds)
      ? await updatePodsInPlace(
          ctx,
          plan.podsToDelete,
          old,
          hash,
          plan.desiredNumberScheduled
        )
      : plan.podsToDelete;
    await syncNodes(ctx, { ...plan, podsToDelete }, hash);
    rollRequeueMs = plan.requeueAfterMs;
  }
  await reportToFleet(ctx, member, {
    nodes,
    byNode,
    revision: hash,
    placement: ctx.placement,
  });
  await cleanupHistory(ctx, old);
  return minDefined(requeueAfterMs, rollRequeueMs);
};

/**
 * Reconciles one DaemonSet, named by its key `cluster/namespace/name`, with
 * the ports of that cluster. Throws to ask for a retry with backoff; a
 * `TerminalError` means the key can never succeed.
 *
 * @example
 * const result = await syncDaemonSet('prod/kube-system/node-agent', deps);
 * if (result.requeueAfterMs) queue.addAfter(key, result.requeueAfterMs);
 */
export const syncDaemonSet = async (
  key: string,
  deps: SyncDeps
): Promise<SyncResult> => {
  const dsKey = parseDaemonSetKey(key);
  const ds = await deps.reader.getDaemonSet(dsKey.namespace, dsKey.name);
  if (ds === undefined) {
    deps.logger.debug('DaemonSet not found, dropping expectations');
    await deps.expectations.deleteExpectations(key);
    return {};
  }
  const ctx: SyncContext = {
    key,
    dsKey,
    ds,
    deps,
    read: { daemonSet: ds, pods: [] },
    placement: placementOnce(ds),
  };
  if (deps.rollsOnDeleteOnly) {
    return resultOf(ctx.read, await rollOnDelete(ctx));
  }
  const nodes = await deps.reader.listNodes();
  if (isEmptyLabelSelector(ds.spec?.selector)) {
    await deps.events.record(
      ds,
      'Warning',
      EventReason.SelectingAll,
      'This daemon set is selecting all pods. A non-empty selector is required.'
    );
    return resultOf(ctx.read, undefined);
  }
  if (ds.metadata?.deletionTimestamp) return resultOf(ctx.read, undefined);
  const invalid = validateDaemonSetSpec(ds);
  if (invalid.length > 0) {
    // Kruise's webhook would have refused the object: touch nothing else.
    await reportInvalidSpec(ctx, invalid);
    return resultOf(ctx.read, undefined);
  }

  const { cur, old } = await constructHistory(ctx);
  const hash = labelOf(cur, CONTROLLER_REVISION_HASH_LABEL);
  ctx.read.hash = hash;

  if (!(await deps.expectations.satisfiedExpectations(key))) {
    const requeueAfterMs = await updateDaemonSetStatus(ctx, nodes, hash, false);
    return resultOf(ctx.read, requeueAfterMs);
  }

  let syncErr: Error | undefined;
  let requeueAfterMs: number | undefined;
  try {
    requeueAfterMs = await updateDaemonSet(ctx, nodes, hash, old);
  } catch (e) {
    syncErr = toError(e);
  }
  // Status is written even when pod operations failed (upstream
  // TestUpdateStatusDespitePodCreationFailure); the sync error wins.
  try {
    requeueAfterMs = minDefined(
      requeueAfterMs,
      await updateDaemonSetStatus(ctx, nodes, hash, true)
    );
  } catch (statusErr) {
    if (syncErr === undefined) throw statusErr;
    deps.logger.warn('status update failed after a failed sync', {
      error: toError(statusErr).message,
      notFound: isApiError(statusErr, ApiErrorReason.NotFound),
    });
  }
  if (syncErr !== undefined) throw syncErr;
  return resultOf(ctx.read, requeueAfterMs);
};
