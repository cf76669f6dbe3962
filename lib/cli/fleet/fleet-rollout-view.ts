/**
 * How `dsr fleet` reads a stored rollout: which registered clusters are in
 * which wave, whether a rollout is under way, which controls it has not
 * taken yet, and how times print.
 */

import { isStampedForRollout, isUnderWay } from '../../fleet/fleet-controls.js';
import { fleetMembersOf } from '../../fleet/fleet-members.js';
import {
  assignWaves,
  type WaveMembership,
} from '../../fleet/wave-membership.js';
import type {
  ClusterListing,
  FleetRolloutRecord,
  FleetRolloutStore,
} from '../../ports/index.js';
import { failed, type Outcome } from '../render-output.js';

/** The resource name the verbs print, as kubectl prints kinds. */
export const FLEET_RESOURCE = 'fleetrolloutpolicy';

/** Returns the outcome of a verb on a policy that does not exist. */
export const policyNotFound = (name: string): Outcome =>
  failed(`${FLEET_RESOURCE} ${name} not found`);

/**
 * Returns what `use` makes of the stored record of policy `name`, or the
 * outcome of a policy that does not exist.
 */
export const withStoredPolicy = async (
  name: string,
  store: Pick<FleetRolloutStore, 'get'>,
  use: (record: FleetRolloutRecord) => Outcome | Promise<Outcome>
): Promise<Outcome> => {
  const record = await store.get(name);
  return record === undefined ? policyNotFound(name) : use(record);
};

/**
 * Returns what the rollout is about to do for a control its sync has not
 * taken yet (`pausing`, `resuming`, `aborting`), or undefined.
 */
export const pendingControl = ({
  state,
  controls,
}: FleetRolloutRecord): string | undefined => {
  if (!isUnderWay(state)) return undefined;
  if (isStampedForRollout(controls.abortedAtMs, state) && !state.aborted) {
    return 'aborting';
  }
  if (controls.paused && !state.paused) return 'pausing';
  if (!controls.paused && state.paused) return 'resuming';
  return undefined;
};

/** Returns the rollout's phase, with a control it has not taken yet. */
export const shownPhase = (record: FleetRolloutRecord): string => {
  const pending = pendingControl(record);
  return pending === undefined
    ? record.state.phase
    : `${record.state.phase} (${pending})`;
};

/** Returns the policy's registered clusters by wave, as its sync sees them. */
export const wavesOf = (
  record: Pick<FleetRolloutRecord, 'policy'>,
  listing: ClusterListing
): WaveMembership =>
  assignWaves(record.policy, fleetMembersOf(record.policy, listing.records));

/** Returns a time as kubectl prints one: `2026-01-01T00:00:00Z`. */
export const formatTime = (ms: number): string =>
  new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Returns the lines that name registry items no wave plan can see. */
export const invalidRecordLines = (listing: ClusterListing): string[] =>
  listing.invalid.map(
    (i) => `note: invalid cluster record ${i.key} skipped: ${i.error}`
  );
