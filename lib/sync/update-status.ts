/**
 * Writes DaemonSet status as upstream `updateDaemonSetStatus` and
 * `storeDaemonSetStatus` (pkg/controller/daemon/daemon_controller.go).
 */
import { SyncError } from '../errors.js';
import type { Node } from '../reconcile/k8s/types.js';
import {
  calculateStatus,
  isStatusUpToDate,
  type StatusCounters,
  withStatus,
} from '../reconcile/status.js';
import { nodesToDaemonPods } from './claim.js';
import type { SyncContext } from './context.js';

/**
 * Retries of a failed status write, each after a fresh GET: one, so a stale
 * resourceVersion is fixed at once while a broken API is left to the
 * per-key backoff.
 */
export const STATUS_UPDATE_RETRIES = 1;

/** Writes the counters unless the stored status already says so. */
export const storeDaemonSetStatus = async (
  ctx: SyncContext,
  counters: StatusCounters,
  updateObservedGen: boolean
): Promise<void> => {
  const { ds, deps } = ctx;
  if (isStatusUpToDate(ds, counters)) return;
  const observed = updateObservedGen ? ds.metadata?.generation : undefined;
  let toUpdate = ds;
  let updateErr: unknown;
  for (let i = 0; ; i++) {
    try {
      await deps.statusWriter.updateStatus(
        withStatus(toUpdate, counters, observed)
      );
      return;
    } catch (e) {
      updateErr = e;
    }
    if (i >= STATUS_UPDATE_RETRIES) break;
    const fresh = await deps.reader.getDaemonSetFresh(
      ctx.dsKey.namespace,
      ctx.dsKey.name
    );
    if (fresh === undefined) {
      throw new SyncError(`DaemonSet ${ctx.key} vanished during status update`);
    }
    toUpdate = fresh;
  }
  throw updateErr;
};

/**
 * Computes and stores status; returns a requeue delay when pods are ready
 * but not yet available (`minReadySeconds` as a last line of defence
 * against clock skew).
 */
export const updateDaemonSetStatus = async (
  ctx: SyncContext,
  nodes: readonly Node[],
  hash: string,
  updateObservedGen: boolean
): Promise<number | undefined> => {
  const byNode = await nodesToDaemonPods(ctx, false);
  const counters = calculateStatus(
    ctx.ds,
    nodes,
    byNode,
    hash,
    ctx.deps.clock.now()
  );
  await storeDaemonSetStatus(ctx, counters, updateObservedGen);
  const minReady = ctx.ds.spec?.minReadySeconds ?? 0;
  return minReady > 0 && counters.numberReady !== counters.numberAvailable
    ? minReady * 1000
    : undefined;
};
