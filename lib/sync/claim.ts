/**
 * Claims pods and ControllerRevisions for a DaemonSet, acting on the
 * decisions of `claimDecision`: upstream `getDaemonPods`,
 * `controlledHistories` and `ClaimPods`/`ClaimControllerRevisions`
 * (pkg/controller/controller_ref_manager.go).
 */

import {
  ApiErrorReason,
  isApiError,
  ReconcilerError,
  SyncError,
  toError,
} from '../errors.js';
import type { Patch } from '../ports/index.js';
import {
  adoptPatch,
  claimDecision,
  releasePatch,
} from '../reconcile/k8s/controller-ref.js';
import { parseLabelSelector } from '../reconcile/k8s/label-selector.js';
import { nameOf, uidOf } from '../reconcile/k8s/meta.js';
import type { KubeObject, Pod } from '../reconcile/k8s/types.js';
import { getNodesToDaemonPods } from '../reconcile/nodes-to-daemon-pods.js';
import type { SyncContext } from './context.js';

/**
 * Returns a check that runs at most once per claim pass: before the first
 * adoption, an uncached read must show the DaemonSet alive with the same UID
 * (upstream `RecheckDeletionTimestamp`, kubernetes/kubernetes#42639).
 */
const canAdoptOnce = (ctx: SyncContext): (() => Promise<void>) => {
  let result: Promise<void> | undefined;
  return () => {
    result ??= (async () => {
      const { namespace, name } = ctx.dsKey;
      const fresh = await ctx.deps.reader.getDaemonSetFresh(namespace, name);
      if (fresh === undefined || fresh.metadata?.uid !== ctx.ds.metadata?.uid) {
        throw new SyncError(
          `original DaemonSet ${namespace}/${name} is gone: wanted uid ${ctx.ds.metadata?.uid}`
        );
      }
      if (fresh.metadata?.deletionTimestamp) {
        throw new SyncError(
          `${namespace}/${name} has just been deleted at ${fresh.metadata.deletionTimestamp}`
        );
      }
    })();
    return result;
  };
};

/** Returns the objects this DaemonSet controls after adopting and releasing. */
const claimObjects = async <T extends KubeObject>(
  ctx: SyncContext,
  objects: readonly T[],
  patch: (obj: T, p: Patch) => Promise<void>
): Promise<T[]> => {
  const matches = parseLabelSelector(ctx.ds.spec?.selector);
  const canAdopt = canAdoptOnce(ctx);
  const claimed: T[] = [];
  const errors: Error[] = [];
  for (const obj of objects) {
    const uid = uidOf(obj);
    const decision = claimDecision(ctx.ds, obj, matches(obj.metadata?.labels));
    try {
      if (decision === 'claim') {
        claimed.push(obj);
      } else if (decision === 'adopt') {
        await canAdopt();
        await patch(obj, { type: 'strategic', body: adoptPatch(ctx.ds, uid) });
        claimed.push(obj);
      } else if (decision === 'release') {
        await patch(obj, {
          type: 'strategic',
          body: releasePatch(ctx.ds, uid),
        });
      }
    } catch (e) {
      // Gone already, or (on release) no longer ours: nothing left to do.
      const ignorable =
        isApiError(e, ApiErrorReason.NotFound) ||
        (decision === 'release' && isApiError(e, ApiErrorReason.Invalid));
      if (!ignorable) {
        errors.push(
          new ReconcilerError(
            `${decision} ${obj.metadata?.namespace}/${obj.metadata?.name}`,
            { cause: toError(e) }
          )
        );
      }
    }
  }
  if (errors.length > 0) {
    throw new AggregateError(
      errors,
      `claiming objects for DaemonSet ${ctx.key}: ${errors.map((e) => e.message).join('; ')}`
    );
  }
  return claimed;
};

/**
 * Returns the pods the DaemonSet controls (upstream `getDaemonPods`, which
 * each phase of a sync calls). A pass over the listing an earlier pass of
 * this sync claimed without patching anything is not redone: the same
 * DaemonSet and the same pods give the same claim. After an adoption or a
 * release, or when the reader lists anew, the pass runs again, as upstream's
 * does.
 */
export const getDaemonPods = async (
  ctx: SyncContext
): Promise<readonly Pod[]> => {
  const { namespace } = ctx.dsKey;
  const pods = await ctx.deps.reader.listPods(namespace, ctx.ds);
  ctx.read.pods = pods;
  if (ctx.claimed?.from === pods) return ctx.claimed.pods;
  let patched = false;
  const claimed = await claimObjects(ctx, pods, (pod, p) => {
    patched = true;
    return ctx.deps.podControl.patchPod(namespace, nameOf(pod), p);
  });
  ctx.claimed = patched
    ? undefined
    : { from: pods, pods: claimed, byNode: new Map() };
  return claimed;
};

/** Returns the revisions the DaemonSet controls (`controlledHistories`). */
export const controlledHistories = async (ctx: SyncContext) => {
  const { namespace } = ctx.dsKey;
  const revisions = await ctx.deps.reader.listControllerRevisions(namespace);
  return claimObjects(ctx, revisions, (r, p) =>
    ctx.deps.revisionControl.patchRevision(namespace, nameOf(r), p)
  );
};

/**
 * Returns the DaemonSet's claimed pods grouped by target node (upstream
 * `getNodesToDaemonPods`: claim, then group).
 */
export const nodesToDaemonPods = async (
  ctx: SyncContext,
  includeDeletedTerminal: boolean
): Promise<ReadonlyMap<string, readonly Pod[]>> => {
  const pods = await getDaemonPods(ctx);
  const kept = ctx.claimed?.pods === pods ? ctx.claimed.byNode : undefined;
  let byNode = kept?.get(includeDeletedTerminal);
  if (byNode === undefined) {
    byNode = getNodesToDaemonPods(pods, includeDeletedTerminal);
    kept?.set(includeDeletedTerminal, byNode);
  }
  return byNode;
};
