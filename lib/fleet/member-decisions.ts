/**
 * What each member cluster's DaemonSet syncs may do under a fleet rollout,
 * and how a member sync reads it: a partition floor over its own controls.
 */
import { keptNodes } from './advance-cluster.js';
import type { FleetWave } from './fleet-policy.js';
import type {
  FleetRolloutState,
  MemberDecision,
} from './fleet-rollout-state.js';

/** Hold every node of a cluster on the stable revision. */
const HOLD_ALL = '100%';

/** Returns each covered cluster's decision. */
export const decide = (
  s: FleetRolloutState,
  ids: readonly string[],
  waveOf: ReadonlyMap<string, FleetWave>
): Record<string, MemberDecision> => {
  const decisions: Record<string, MemberDecision> = {};
  for (const id of ids) {
    const stable = s.stable[id];
    const target = s.target[id];
    const base = stable === undefined ? {} : { stable };
    if (target === undefined) {
      decisions[id] = {
        ...base,
        partition: stable === undefined ? HOLD_ALL : 0,
      };
      continue;
    }
    const cr = s.clusters[id];
    const wave = waveOf.get(id);
    const step = wave?.nodeSteps[cr?.step ?? 0];
    decisions[id] = {
      ...base,
      target,
      partition:
        cr === undefined || cr.phase === 'Pending' || step === undefined
          ? HOLD_ALL
          : cr.phase === 'Done'
            ? 0
            : step.partition,
    };
  }
  return decisions;
};

/**
 * Returns how many nodes a member DaemonSet's sync must keep on the old
 * revision for the fleet (0: no hold), given the revision its template
 * has now: the stable revision is never held, the pinned target on all but
 * the step's partition, any other revision everywhere.
 */
export const fleetPartitionFloor = (
  decision: MemberDecision | undefined,
  revision: string,
  desired: number
): number => {
  if (decision === undefined || revision === decision.stable) return 0;
  if (revision !== decision.target) return desired;
  return keptNodes(decision.partition, desired);
};
