/**
 * The registered clusters a fleet rollout policy can roll: those whose
 * ownership runs the policy's kind (the own AdvancedDaemonSet kind, or a
 * native DaemonSet). What the fleet sync plans over and what `dsr fleet`
 * shows as the wave plan are the same set.
 */
import type { ClusterRecord } from '../ports/index.js';
import type { FleetPolicy } from './fleet-policy.js';
import type { FleetMember } from './wave-membership.js';

/** Returns whether the cluster's reconciler owns the policy's kind. */
const ownsTargetKind = (policy: FleetPolicy, record: ClusterRecord): boolean =>
  policy.target.kind === 'AdvancedDaemonSet'
    ? record.ownership === 'apps.dsr.dev/v1beta1'
    : record.ownership !== 'apps.dsr.dev/v1beta1';

/**
 * Returns the registered clusters that can run the policy's kind, with
 * their registration labels, as the wave assignment takes them.
 *
 * @example
 * const { waves } = assignWaves(policy, fleetMembersOf(policy, records));
 */
export const fleetMembersOf = (
  policy: FleetPolicy,
  records: readonly ClusterRecord[]
): FleetMember[] =>
  records
    .filter((r) => ownsTargetKind(policy, r))
    .map((r) => ({ id: r.id, labels: r.labels ?? {} }));
