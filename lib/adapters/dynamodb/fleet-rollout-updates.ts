/**
 * The UpdateItem expressions of the fleet rollout store, one per writer
 * (items: fleet-rollout-item.ts). Each SETs only its writer's attributes.
 * History grows by `list_append`, which needs no read; an append that takes
 * it over FLEET_HISTORY_LIMIT is followed by a conditional trim, as
 * DynamoDB refuses to append to and remove from one list in one update.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { FleetPolicy } from '../../fleet/fleet-policy.js';
import {
  type FleetRolloutState,
  idleFleetRollout,
  type MemberObservation,
} from '../../fleet/fleet-rollout-state.js';
import {
  FLEET_HISTORY_LIMIT,
  type FleetControls,
  type FleetMemberRecord,
} from '../../ports/fleet-rollouts.js';
import { bool, type Expression, type Item, num, str } from './dynamo-call.js';
import { FLEET_ROLLOUT_KIND } from './fleet-rollout-item.js';
import { KIND_ATTRIBUTE, PARTITION_KEY } from './table-schema.js';

/** One UpdateItem's expression and the names no `#identifier` can carry. */
export interface FleetUpdate extends Expression {
  update: string;
  /** Placeholders of attribute names that are no identifiers (wave names). */
  names?: Record<string, string>;
}

const EXISTS = `attribute_exists(#${PARTITION_KEY})`;
const APPEND_HISTORY =
  '#history = list_append(if_not_exists(#history, :none), :notes)';

/** Returns the values APPEND_HISTORY takes: `notes` stamped `nowMs`. */
const historyValues = (notes: readonly string[], nowMs: number) => ({
  ':none': { L: [] },
  ':notes': {
    L: notes.slice(-FLEET_HISTORY_LIMIT).map((note) => ({
      M: { atMs: num(nowMs), note: str(note) },
    })),
  },
});

/**
 * Returns the update that creates a record or replaces its policy and
 * source, keeping an existing record's state, controls and history.
 */
export const applyPolicyUpdate = (
  policy: FleetPolicy,
  source: string,
  nowMs: number
): FleetUpdate => ({
  update: [
    `SET #${KIND_ATTRIBUTE} = :kind, #policy = :policy`,
    '#source = :source, #appliedAtMs = :appliedAtMs',
    '#state = if_not_exists(#state, :idle)',
    '#paused = if_not_exists(#paused, :false)',
    '#approvedAtMs = if_not_exists(#approvedAtMs, :noApprovals)',
    '#history = if_not_exists(#history, :none)',
  ].join(', '),
  values: {
    ':kind': str(FLEET_ROLLOUT_KIND),
    ':policy': str(JSON.stringify(policy)),
    ':source': str(source),
    ':appliedAtMs': num(nowMs),
    ':idle': str(JSON.stringify(idleFleetRollout())),
    ':false': bool(false),
    ':noApprovals': { M: {} },
    ':none': { L: [] },
  },
});

/** Returns the fleet sync's update of an existing record's state. */
export const saveStateUpdate = (
  state: FleetRolloutState,
  notes: readonly string[],
  nowMs: number
): FleetUpdate => ({
  update:
    notes.length === 0
      ? 'SET #state = :state'
      : `SET #state = :state, ${APPEND_HISTORY}`,
  condition: EXISTS,
  values: {
    ':state': str(JSON.stringify(state)),
    ...historyValues(notes, nowMs),
  },
});

/**
 * Returns the operator's update of an existing record's controls: a given
 * `paused` or `abortedAtMs` replaces the stored one, approvals are added
 * wave by wave (each its own entry of the `approvedAtMs` map).
 */
export const setControlsUpdate = (
  change: Partial<FleetControls>,
  note: string,
  nowMs: number
): FleetUpdate => {
  const sets: string[] = [];
  const values: Record<string, AttributeValue> = historyValues([note], nowMs);
  const names: Record<string, string> = {};
  if (change.paused !== undefined) {
    sets.push('#paused = :paused');
    values[':paused'] = bool(change.paused);
  }
  if (change.abortedAtMs !== undefined) {
    sets.push('#abortedAtMs = :abortedAtMs');
    values[':abortedAtMs'] = num(change.abortedAtMs);
  }
  const approvals = Object.entries(change.approvedAtMs ?? {});
  for (const [i, [wave, atMs]] of approvals.entries()) {
    sets.push(`#approvedAtMs.#wave${i} = :wave${i}`);
    names[`#wave${i}`] = wave;
    values[`:wave${i}`] = num(atMs);
  }
  sets.push(APPEND_HISTORY);
  return {
    update: `SET ${sets.join(', ')}`,
    condition: EXISTS,
    values,
    names,
  };
};

/**
 * Returns the update that drops the oldest entries an append took over
 * the limit, if no one has changed the history since; undefined when the
 * written history (`UPDATED_NEW`) is within it.
 */
export const trimHistoryUpdate = (
  written: Item | undefined
): FleetUpdate | undefined => {
  const length = written?.history?.L?.length ?? 0;
  const excess = length - FLEET_HISTORY_LIMIT;
  if (excess <= 0) return undefined;
  const paths = Array.from({ length: excess }, (_, i) => `#history[${i}]`);
  return {
    update: `REMOVE ${paths.join(', ')}`,
    condition: 'size(#history) = :length',
    values: { ':length': num(length) },
  };
};

/** Returns the fleet sync's update of a member, created when missing. */
export const decisionUpdate = (
  member: Omit<FleetMemberRecord, 'observation'>
): FleetUpdate => ({
  update: 'SET #policy = :policy, #decision = :decision, #health = :health',
  values: {
    ':policy': str(member.policy),
    ':decision': str(JSON.stringify(member.decision)),
    ':health': str(JSON.stringify(member.health)),
  },
});

/** Returns a member sync's update of an existing member's observation. */
export const reportUpdate = (observation: MemberObservation): FleetUpdate => ({
  update: 'SET #observation = :observation',
  condition: EXISTS,
  values: { ':observation': str(JSON.stringify(observation)) },
});
