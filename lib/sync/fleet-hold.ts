/**
 * A member DaemonSet under a fleet rollout: the rollout's decision is a
 * partition floor under the object's own controls (a user's `partition`
 * or `paused` still holds); pods created while it holds the current
 * revision come from the stable one; and after rolling the sync reports
 * what it saw so the fleet rollout can judge the step.
 */

import { fleetPartitionFloor } from '../fleet/member-decisions.js';
import { observeMember } from '../fleet/observe-member.js';
import type { FleetMemberRecord } from '../ports/index.js';
import { getPartition } from '../reconcile/advanced/rollout-controls.js';
import { isDeleting } from '../reconcile/k8s/meta.js';
import {
  getTemplateGeneration,
  isPodUpdated,
} from '../reconcile/k8s/pod-util.js';

import type {
  ControllerRevision,
  DaemonSet,
  Node,
  Pod,
} from '../reconcile/k8s/types.js';
import type { NodePlacement } from '../reconcile/node-should-run.js';
import { revisionHash, revisionTemplate } from '../reconcile/revision-hash.js';
import type { PodSource, SyncContext } from './context.js';

/** Returns the key's member item, if a fleet rollout covers it. */
export const readFleetMember = (
  ctx: SyncContext
): Promise<FleetMemberRecord | undefined> =>
  ctx.deps.fleet?.memberOf(ctx.key) ?? Promise.resolve(undefined);

/** Returns how many of `nodes` should run a pod. */
const desiredCount = (nodes: readonly Node[], placement: NodePlacement) =>
  nodes.filter((n) => placement(n).shouldRun).length;

/**
 * Returns the RollingUpdate DaemonSet `ds` as its rolling update must read
 * it under the member's hold: its partition raised to the fleet's floor
 * when that is higher. Only planners see this copy; it is never written.
 */
export const heldByFleet = (
  ds: DaemonSet,
  member: FleetMemberRecord | undefined,
  hash: string,
  nodes: readonly Node[],
  placement: NodePlacement
): DaemonSet => {
  const desired = desiredCount(nodes, placement);
  const floor = fleetPartitionFloor(member?.decision, hash, desired);
  if (floor <= (getPartition(ds, desired) ?? 0)) return ds;
  const spec = ds.spec as NonNullable<DaemonSet['spec']>;
  return {
    ...ds,
    spec: {
      ...spec,
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: {
          ...spec.updateStrategy?.rollingUpdate,
          partition: floor,
        },
      },
    },
  };
};

/**
 * Returns where the pods the sync creates come from while the fleet holds
 * the current revision back on some nodes: beyond the room the step
 * leaves (its nodes not yet on the current revision), from the stable
 * revision's template in the cluster's own ControllerRevision. A node
 * added or a pod lost mid-rollout so gets the stable revision until its
 * step, and the rolling update then moves it as any other. Undefined (the
 * current template) with no hold, or when the cluster keeps no
 * ControllerRevision of the stable revision.
 */
export const heldCreationSource = (
  ds: DaemonSet,
  member: FleetMemberRecord | undefined,
  hash: string,
  view: {
    nodes: readonly Node[];
    placement: NodePlacement;
    old: readonly ControllerRevision[];
    byNode: ReadonlyMap<string, readonly Pod[]>;
  }
): PodSource | undefined => {
  const decision = member?.decision;
  const stable = decision?.stable;
  if (stable === undefined) return undefined;
  const desired = desiredCount(view.nodes, view.placement);
  const floor = fleetPartitionFloor(decision, hash, desired);
  if (floor === 0) return undefined;
  const revision = view.old.find((r) => revisionHash(r) === stable);
  const template = revision && revisionTemplate(revision);
  if (template === undefined) return undefined;
  const generation = getTemplateGeneration(ds);
  let updated = 0;
  for (const pods of view.byNode.values()) {
    if (pods.some((p) => !isDeleting(p) && isPodUpdated(p, hash, generation))) {
      updated++;
    }
  }
  return {
    template,
    hash: stable,
    fromCurrent: Math.max(0, desired - floor - updated),
  };
};

/** Reports the member's pods of `revision` to its fleet rollout. */
export const reportToFleet = async (
  ctx: SyncContext,
  member: FleetMemberRecord | undefined,
  view: {
    nodes: readonly Node[];
    byNode: ReadonlyMap<string, readonly Pod[]>;
    revision: string;
    placement: NodePlacement;
  }
): Promise<void> => {
  if (member === undefined || ctx.deps.fleet === undefined) return;
  await ctx.deps.fleet.report(
    member,
    observeMember({
      ...view,
      minReadySeconds: ctx.ds.spec?.minReadySeconds ?? 0,
      health: member.health,
      nowMs: ctx.deps.clock.now(),
    })
  );
};
