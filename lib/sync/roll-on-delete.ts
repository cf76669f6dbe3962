/**
 * The native OnDelete mode's sync: the cluster's own DaemonSet controller
 * stays on, creates a pod with the current template wherever one is
 * missing, labels it, keeps the ControllerRevisions and writes status. This
 * sync only reads, then deletes old-revision pods of an opted-in DaemonSet
 * within its budget, in upstream's rolling-update order (Kruise's partition
 * and canary selector applied), holding each behind its preDelete hook.
 *
 * Invariants: it never creates a pod, never writes the DaemonSet (spec or
 * status), a ControllerRevision, or an ownerReference; its only writes are
 * pod deletions, the hook's pod label and condition patches, and the
 * KruisePodReady condition of new pods whose template carries that gate. Until the
 * cluster's controller has recorded the current template's revision it
 * deletes nothing.
 */
import { isPreparingDelete } from '../reconcile/advanced/rollout-controls.js';
import { EventReason } from '../reconcile/events.js';
import { isControlledBy } from '../reconcile/k8s/controller-ref.js';
import { isDeleting, nameOf } from '../reconcile/k8s/meta.js';
import { podName } from '../reconcile/k8s/pod-util.js';
import type { ControllerRevision } from '../reconcile/k8s/types.js';
import { placementOnce } from '../reconcile/node-should-run.js';
import { getNodesToDaemonPods } from '../reconcile/nodes-to-daemon-pods.js';
import {
  asRollingUpdate,
  readOnDeleteOptIn,
} from '../reconcile/on-delete/rollout-annotation.js';
import { match, revisionHash } from '../reconcile/revision-hash.js';
import { planRollingUpdate } from '../reconcile/rolling-update.js';
import type { SyncContext } from './context.js';
import { heldByFleet, readFleetMember, reportToFleet } from './fleet-hold.js';
import { refreshUpdateStates } from './in-place.js';
import { syncNodes } from './sync-nodes.js';

/** Looks again this soon while the cluster's controller records a revision. */
export const REVISION_WAIT_MS = 1_000;
/** Looks again this soon while nodes counted as unavailable have no pod. */
export const PODLESS_NODE_WAIT_MS = 10_000;

/**
 * Returns the hash of the revision the cluster's controller recorded for
 * the DaemonSet's current template (the highest-numbered match), if any.
 */
export const recordedRevisionHash = (
  ctx: SyncContext,
  revisions: readonly ControllerRevision[]
): string | undefined => {
  const current = revisions
    .filter((r) => isControlledBy(r, ctx.ds) && match(ctx.ds, r))
    .sort((a, b) => b.revision - a.revision);
  return current[0] === undefined ? undefined : revisionHash(current[0]);
};

/**
 * Deletes the old pods an opted-in OnDelete DaemonSet's rollout allows now;
 * returns when to look again (undefined: the next event). A DaemonSet that
 * did not opt in is left untouched.
 */
export const rollOnDelete = async (
  ctx: SyncContext
): Promise<number | undefined> => {
  const { ds, deps, key } = ctx;
  if (isDeleting(ds)) return undefined;
  const member = await readFleetMember(ctx);
  const optIn = readOnDeleteOptIn(ds, member !== undefined);
  if (!optIn.optedIn) return undefined;
  if ('problems' in optIn) {
    // Nothing is deleted until the annotation is fixed; its edit wakes us.
    await deps.events.record(
      ds,
      'Warning',
      EventReason.InvalidRollout,
      optIn.problems.join('; ')
    );
    return undefined;
  }
  const { namespace } = ctx.dsKey;
  const revisions = await deps.reader.listControllerRevisions(namespace);
  const hash = recordedRevisionHash(ctx, revisions);
  if (hash === undefined) return REVISION_WAIT_MS;
  ctx.read.hash = hash;
  const pods = await deps.reader.listPods(namespace, ds);
  ctx.read.pods = pods;
  const owned = pods.filter((p) => isControlledBy(p, ds));
  // New pods with the KruisePodReady gate serve once it is set, paused or not.
  await refreshUpdateStates({ ...ctx, read: { ...ctx.read, pods: owned } });
  const nodes = await deps.reader.listNodes();
  const byNode = getNodesToDaemonPods(owned, false);
  const placement = placementOnce(asRollingUpdate(ds, optIn.controls));
  await reportToFleet(ctx, member, {
    nodes,
    byNode,
    revision: hash,
    placement,
  });
  if (optIn.controls.paused) return undefined;
  if (!(await deps.expectations.satisfiedExpectations(key))) return undefined;
  const planned = heldByFleet(
    asRollingUpdate(ds, optIn.controls),
    member,
    hash,
    nodes,
    placement
  );
  const plan = planRollingUpdate(
    planned,
    nodes,
    byNode,
    hash,
    deps.clock.now(),
    placement
  );
  // As Kruise's manage does: a pod a hook held is asked to go again each
  // sync, and goes once the hook lets it.
  const preparing = owned
    .filter((p) => isPreparingDelete(p) && !isDeleting(p))
    .map(podName);
  const podsToDelete = [...new Set([...preparing, ...plan.podsToDelete])];
  // A node without a pod counts against the budget until the cluster's
  // controller fills it, and a node deleted meanwhile wakes no key: look
  // again, with a fresher node list, rather than wait for an event.
  const podless = nodes.some(
    (n) => placement(n).shouldRun && (byNode.get(nameOf(n))?.length ?? 0) === 0
  );
  const requeueAfterMs = podless ? PODLESS_NODE_WAIT_MS : undefined;
  if (podsToDelete.length === 0) return requeueAfterMs;
  await syncNodes(
    { ...ctx, ds: planned, placement },
    {
      podsToDelete,
      nodesNeedingDaemonPods: [],
      desiredNumberScheduled: plan.desiredNumberScheduled,
    },
    hash
  );
  return requeueAfterMs;
};
