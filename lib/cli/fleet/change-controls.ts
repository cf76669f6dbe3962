/**
 * `dsr fleet pause|resume|abort NAME` and `approve NAME WAVE`: the
 * operator's controls, stored with a history line and taken by the
 * rollout's next sync. Each is idempotent: a control already in place is
 * said so and not written again, and the rollout is woken either way (a
 * retry after a failed wake wakes it).
 */
import { isStampedForRollout, isUnderWay } from '../../fleet/fleet-controls.js';
import type { FleetControls, FleetRolloutRecord } from '../../ports/index.js';
import { failed, type Outcome } from '../render-output.js';
import { type FleetCliDeps, wakeRollout } from './fleet-cli-deps.js';
import type { ControlVerb, FleetTableCommand } from './fleet-command.js';
import {
  FLEET_RESOURCE,
  policyNotFound,
  withStoredPolicy,
} from './fleet-rollout-view.js';

type ControlCommand = Extract<
  FleetTableCommand,
  { verb: ControlVerb | 'approve' }
>;

/** What a verb asks of the controls, given the stored record. */
type Decision =
  /** Write `change` with `note`, then say `done`. */
  | { change: Partial<FleetControls>; note: string; done: string }
  /** Nothing to write: the control is in place. */
  | { already: string }
  /** The verb cannot apply to the record. */
  | { refused: Outcome };

/** Returns `Phase`, for messages about a rollout that is not under way. */
const noRollout = (record: FleetRolloutRecord): string =>
  `${FLEET_RESOURCE} ${record.policy.name} has no rollout under way (phase ${record.state.phase})`;

/** Returns what `approve NAME WAVE` does to the record. */
const approval = (
  record: FleetRolloutRecord,
  wave: string,
  nowMs: number
): Decision => {
  const { policy, state, controls } = record;
  const found = policy.waves.find((w) => w.name === wave);
  const resource = `${FLEET_RESOURCE}/${policy.name}`;
  if (found === undefined) {
    return {
      refused: failed(
        `${FLEET_RESOURCE} ${policy.name} has no wave ${JSON.stringify(wave)}; its waves: ${policy.waves.map((w) => w.name).join(', ')}`
      ),
    };
  }
  if (!found.manualApproval) {
    return { already: `${resource} wave ${wave} needs no approval` };
  }
  if (!isUnderWay(state)) {
    return {
      refused: failed(
        `${noRollout(record)}: an approval applies to the rollout under way when it is given; approve wave ${wave} once a rollout waits for it`
      ),
    };
  }
  if (isStampedForRollout(controls.approvedAtMs[wave], state)) {
    return { already: `${resource} wave ${wave} already approved` };
  }
  return {
    change: { approvedAtMs: { [wave]: nowMs } },
    note: `wave ${wave} approved (dsr fleet approve)`,
    done: `${resource} wave ${wave} approved`,
  };
};

/** Returns what the verb does to the record. */
const decideControl = (
  command: ControlCommand,
  record: FleetRolloutRecord,
  nowMs: number
): Decision => {
  const { state, controls } = record;
  const resource = `${FLEET_RESOURCE}/${record.policy.name}`;
  switch (command.verb) {
    case 'pause':
      return controls.paused
        ? { already: `${resource} already paused` }
        : {
            change: { paused: true },
            note: 'paused (dsr fleet pause)',
            done: `${resource} paused`,
          };
    case 'resume':
      return !controls.paused
        ? { already: `${resource} is not paused` }
        : {
            change: { paused: false },
            note: 'resumed (dsr fleet resume)',
            done: `${resource} resumed`,
          };
    case 'abort':
      if (!isUnderWay(state)) {
        return { refused: failed(`${noRollout(record)}: nothing to abort`) };
      }
      return isStampedForRollout(controls.abortedAtMs, state)
        ? { already: `${resource} already aborted` }
        : {
            change: { abortedAtMs: nowMs },
            note: 'aborted (dsr fleet abort): every cluster stays where it is',
            done: `${resource} aborted`,
          };
    case 'approve':
      return approval(record, command.wave, nowMs);
  }
};

/** Runs the verb on the stored record. */
const changeStoredControls = async (
  command: ControlCommand,
  record: FleetRolloutRecord,
  deps: FleetCliDeps
): Promise<Outcome> => {
  const { name } = command;
  const nowMs = deps.clock.now();
  const decision = decideControl(command, record, nowMs);
  if ('refused' in decision) return decision.refused;
  let message: string;
  if ('already' in decision) {
    message = decision.already;
  } else {
    const { change, note } = decision;
    if (!(await deps.store.setControls(name, change, note, nowMs))) {
      return policyNotFound(name);
    }
    message = decision.done;
  }
  const done: Outcome = {
    exitCode: 0,
    lines: [message],
    json: {
      name,
      verb: command.verb,
      changed: 'change' in decision,
      message,
    },
  };
  return wakeRollout(name, deps, done, `run ${command.verb} again`);
};

/** Runs `pause`, `resume`, `abort` or `approve`. */
export const changeControls = (
  command: ControlCommand,
  deps: FleetCliDeps
): Promise<Outcome> =>
  withStoredPolicy(command.name, deps.store, (record) =>
    changeStoredControls(command, record, deps)
  );
