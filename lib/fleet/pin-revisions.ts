/**
 * Pins a fleet rollout to revisions: what each member ran before it
 * (stable) and what it rolls to (target), from the revision each member's
 * template shows. A first target starts the rollout; a newer one on a
 * cluster already pinned supersedes it, and the rollout starts over.
 */
import { isUnderWay } from './fleet-controls.js';
import type {
  FleetRolloutInput,
  FleetRolloutState,
} from './fleet-rollout-state.js';

const mostCommon = (values: readonly string[]): string | undefined => {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
};

const restart = (s: FleetRolloutState, nowMs: number): void => {
  s.phase = 'Progressing';
  s.startedAtMs = nowMs;
  s.clusters = {};
  s.waveDoneAtMs = {};
  s.approvedWaves = [];
  s.aborted = false;
  delete s.haltReason;
};

/** Pins stable and target revisions from what each member shows. */
export const pin = (
  s: FleetRolloutState,
  ids: readonly string[],
  input: Pick<FleetRolloutInput, 'observations' | 'nowMs'>,
  notes: string[]
): void => {
  const running = isUnderWay(s);
  for (const id of ids) {
    const rev = input.observations.get(id)?.revision;
    if (rev === undefined) continue;
    if (s.stable[id] === undefined) {
      // A cluster seen for the first time mid-rollout keeps the fleet's
      // stable revision until its wave, as any other member does.
      const fleetStable = mostCommon(Object.values(s.stable));
      s.stable[id] = running && fleetStable !== undefined ? fleetStable : rev;
    }
    const target = s.target[id];
    if (rev === s.stable[id]) {
      if (target !== undefined) {
        delete s.target[id];
        notes.push(`${id}: back on the stable revision ${rev}`);
      }
      continue;
    }
    if (target === rev) continue;
    s.target[id] = rev;
    if (target !== undefined || !running) {
      if (target !== undefined) s.supersededAtMs = input.nowMs;
      notes.push(
        target === undefined
          ? `rollout started: ${id} shows revision ${rev}`
          : `superseded: ${id} moved from revision ${target} to ${rev}; the rollout starts over`
      );
      restart(s, input.nowMs);
    }
  }
};
