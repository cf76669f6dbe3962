/**
 * Writes DaemonSet status as upstream `updateDaemonSetStatus` and
 * `storeDaemonSetStatus` (pkg/controller/daemon/daemon_controller.go).
 */
import { SyncError } from '../errors.js';
import { EventReason } from '../reconcile/events.js';
import { rfc3339 } from '../reconcile/k8s/meta.js';
import type { DaemonSet, Node } from '../reconcile/k8s/types.js';
import {
  calculateStatus,
  isStatusUpToDate,
  type StatusCounters,
  withInvalidSpec,
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

/**
 * Writes the status `build` derives from the DaemonSet; a failed write is
 * retried on a fresh GET (upstream's loop in `storeDaemonSetStatus`).
 * `build` returning undefined means the stored status already says it.
 */
const writeStatus = async (
  ctx: SyncContext,
  build: (ds: DaemonSet) => DaemonSet | undefined
): Promise<void> => {
  let toUpdate = build(ctx.ds);
  let updateErr: unknown;
  for (let i = 0; toUpdate !== undefined; i++) {
    try {
      await ctx.deps.statusWriter.updateStatus(toUpdate);
      return;
    } catch (e) {
      updateErr = e;
    }
    if (i >= STATUS_UPDATE_RETRIES) throw updateErr;
    const fresh = await ctx.deps.reader.getDaemonSetFresh(
      ctx.dsKey.namespace,
      ctx.dsKey.name
    );
    if (fresh === undefined) {
      throw new SyncError(`DaemonSet ${ctx.key} vanished during status update`);
    }
    toUpdate = build(fresh);
  }
};

/** Writes the counters unless the stored status already says so. */
export const storeDaemonSetStatus = (
  ctx: SyncContext,
  counters: StatusCounters,
  updateObservedGen: boolean
): Promise<void> =>
  writeStatus(ctx, (ds) =>
    isStatusUpToDate(ds, counters)
      ? undefined
      : // The generation this sync computed for, never a fresh read's newer
        // one (upstream: `ObservedGeneration = ds.Generation` of the sync).
        withStatus(
          ds,
          counters,
          updateObservedGen ? ctx.ds.metadata?.generation : undefined
        )
  );

/**
 * Reports a spec the reconciler refuses: the InvalidSpec condition, and a
 * Warning event when the condition is new or its message changed.
 */
export const reportInvalidSpec = async (
  ctx: SyncContext,
  errors: readonly string[]
): Promise<void> => {
  const message = errors.join('; ');
  const now = rfc3339(ctx.deps.clock.now());
  // The generation the errors were found in, whatever a retry reads.
  const judged = ctx.ds.metadata?.generation;
  const build = (ds: DaemonSet) => withInvalidSpec(ds, message, now, judged);
  if (build(ctx.ds) === undefined) return;
  await ctx.deps.events.record(
    ctx.ds,
    'Warning',
    EventReason.InvalidSpec,
    `spec is invalid, nothing is reconciled until it is fixed: ${message}`
  );
  await writeStatus(ctx, build);
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
    ctx.deps.clock.now(),
    ctx.placement
  );
  await storeDaemonSetStatus(ctx, counters, updateObservedGen);
  const minReady = ctx.ds.spec?.minReadySeconds ?? 0;
  return minReady > 0 && counters.numberReady !== counters.numberAvailable
    ? minReady * 1000
    : undefined;
};
