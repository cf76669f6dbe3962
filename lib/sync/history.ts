/**
 * ControllerRevision history of a sync: upstream `constructHistory`,
 * `snapshot`, `dedupCurHistories` and `cleanupHistory`
 * (pkg/controller/daemon/update.go), acting on the pure decisions of
 * lib/reconcile/revision-hash.ts and revision-history.ts.
 */

import { ApiErrorReason, isApiError, SyncError } from '../errors.js';
import { labelOf, nameOf } from '../reconcile/k8s/meta.js';
import type {
  ControllerRevision,
  DaemonSetStatus,
} from '../reconcile/k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../reconcile/k8s/types.js';
import {
  computeHash,
  match,
  maxRevision,
  revisionHash,
} from '../reconcile/revision-hash.js';
import {
  newControllerRevision,
  pickRevisionToKeep,
  planCleanupHistory,
} from '../reconcile/revision-history.js';
import {
  controlledHistories,
  getDaemonPods,
  nodesToDaemonPods,
} from './claim.js';
import type { SyncContext } from './context.js';

/** The revision matching the template, and every other revision. */
export interface History {
  cur: ControllerRevision;
  old: ControllerRevision[];
}

/**
 * Creates the revision for the current template. On a name collision with
 * different data it bumps `status.collisionCount` and fails the sync, so the
 * next sync hashes with the new count (upstream `snapshot`).
 */
const snapshot = async (
  ctx: SyncContext,
  revision: number
): Promise<ControllerRevision> => {
  const { ds, deps } = ctx;
  const { namespace, name } = ctx.dsKey;
  const history = newControllerRevision(ds, computeHash(ds), revision);
  try {
    return await deps.revisionControl.createRevision(namespace, history);
  } catch (outerErr) {
    if (!isApiError(outerErr, ApiErrorReason.AlreadyExists)) throw outerErr;
    const crName = nameOf(history);
    const existing = await deps.reader.getControllerRevisionFresh(
      namespace,
      crName
    );
    if (existing === undefined) {
      throw new SyncError(`revision ${namespace}/${crName} vanished`, {
        cause: outerErr,
      });
    }
    if (match(ds, existing)) return existing;
    const current = await deps.reader.getDaemonSetFresh(namespace, name);
    if (current === undefined) {
      throw new SyncError(`DaemonSet ${namespace}/${name} vanished`);
    }
    const used = ds.status?.collisionCount;
    const stored = current.status?.collisionCount;
    if (used !== stored) {
      throw new SyncError(
        `found a stale collision count (${used}, expected ${stored}) of DaemonSet "${name}" while processing; will retry until it is updated`
      );
    }
    await deps.statusWriter.updateStatus({
      ...current,
      status: {
        ...current.status,
        collisionCount: (stored ?? 0) + 1,
      } as DaemonSetStatus,
    });
    deps.logger.info('hash collision: bumped collisionCount', {
      revision: crName,
    });
    throw outerErr;
  }
};

/** Keeps one of several identical current revisions (`dedupCurHistories`). */
const dedupCurHistories = async (
  ctx: SyncContext,
  current: readonly ControllerRevision[]
): Promise<ControllerRevision> => {
  const keep = pickRevisionToKeep(current) as ControllerRevision;
  if (current.length === 1) return keep;
  const { namespace } = ctx.dsKey;
  const keepHash = labelOf(keep, CONTROLLER_REVISION_HASH_LABEL);
  const body = JSON.stringify({
    metadata: { labels: { [CONTROLLER_REVISION_HASH_LABEL]: keepHash } },
  });
  for (const pod of await getDaemonPods(ctx)) {
    if (labelOf(pod, CONTROLLER_REVISION_HASH_LABEL) === keepHash) continue;
    await ctx.deps.podControl.patchPod(namespace, nameOf(pod), {
      type: 'merge',
      body,
    });
  }
  for (const r of current) {
    if (r.metadata?.name === keep.metadata?.name) continue;
    await ctx.deps.revisionControl.deleteRevision(namespace, nameOf(r));
  }
  return keep;
};

/**
 * Returns the current revision (created, reused or renumbered) and the old
 * ones (upstream `constructHistory`).
 */
export const constructHistory = async (ctx: SyncContext): Promise<History> => {
  const { namespace } = ctx.dsKey;
  const current: ControllerRevision[] = [];
  const old: ControllerRevision[] = [];
  for (let r of await controlledHistories(ctx)) {
    if (revisionHash(r) === undefined) {
      // Label with the name, not a recomputed hash, so collisions can't bite.
      r = await ctx.deps.revisionControl.updateRevision(namespace, {
        ...r,
        metadata: {
          ...r.metadata,
          labels: {
            ...r.metadata?.labels,
            [CONTROLLER_REVISION_HASH_LABEL]: nameOf(r),
          },
        },
      });
    }
    (match(ctx.ds, r) ? current : old).push(r);
  }
  const currRevision = maxRevision(old) + 1;
  if (current.length === 0) {
    return { cur: await snapshot(ctx, currRevision), old };
  }
  const cur = await dedupCurHistories(ctx, current);
  if (cur.revision < currRevision) {
    // A rollback reuses the old revision and renumbers it to max + 1.
    await ctx.deps.revisionControl.updateRevision(namespace, {
      ...cur,
      revision: currRevision,
    });
  }
  return { cur, old };
};

/** Deletes old revisions beyond `revisionHistoryLimit` (`cleanupHistory`). */
export const cleanupHistory = async (
  ctx: SyncContext,
  old: readonly ControllerRevision[]
): Promise<void> => {
  const byNode = await nodesToDaemonPods(ctx, true);
  const pods = [...byNode.values()].flat();
  for (const name of planCleanupHistory(ctx.ds, old, pods)) {
    await ctx.deps.revisionControl.deleteRevision(ctx.dsKey.namespace, name);
  }
};
