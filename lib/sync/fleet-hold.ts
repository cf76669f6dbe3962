/**
 * A member DaemonSet under a fleet rollout: the rollout's decision is a
 * partition floor under the object's own controls (a user's `partition`
 * or `paused` still holds), and after rolling the sync reports what it saw
 * so the fleet rollout can judge the step.
 */

import { fleetPartitionFloor } from '../fleet/member-decisions.js';
import { observeMember } from '../fleet/observe-member.js';
import type { FleetMemberRecord } from '../ports/index.js';
import { getPartition } from '../reconcile/advanced/rollout-controls.js';

import type { DaemonSet, Node, Pod } from '../reconcile/k8s/types.js';
import type { NodePlacement } from '../reconcile/node-should-run.js';
import type { SyncContext } from './context.js';

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
