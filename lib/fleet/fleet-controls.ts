/**
 * The operator's controls as a rollout reads them: approvals and aborts
 * are stamped, and count only for the rollout under way when they were
 * given (not for a later one); pause is a plain switch.
 */
import type { FleetControls } from '../ports/fleet-rollouts.js';
import type { FleetRolloutState } from './fleet-rollout-state.js';

/** Returns whether a rollout is under way (started and not finished). */
export const isUnderWay = (state: FleetRolloutState): boolean =>
  state.phase !== 'Idle' && state.phase !== 'Done';

/**
 * Returns whether a stamped control (an approval, an abort) applies to the
 * rollout under way: given after it started.
 */
export const isStampedForRollout = (
  atMs: number | undefined,
  state: FleetRolloutState
): boolean =>
  atMs !== undefined &&
  state.startedAtMs !== undefined &&
  atMs >= state.startedAtMs;

/** Returns the state with the operator's controls of its rollout applied. */
export const withControls = (
  state: FleetRolloutState,
  controls: FleetControls
): FleetRolloutState => ({
  ...state,
  paused: controls.paused,
  aborted: isStampedForRollout(controls.abortedAtMs, state),
  approvedWaves: Object.entries(controls.approvedAtMs)
    .filter(([, at]) => isStampedForRollout(at, state))
    .map(([wave]) => wave),
});
