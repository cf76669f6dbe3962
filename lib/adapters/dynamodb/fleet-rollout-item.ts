/**
 * How fleet rollouts sit on the state table. A record `fleet#<policy name>`
 * (`kind = 'fleet-rollout'`, so the sparse registry index lists them apart
 * from the clusters) holds one attribute per writer's concern: the CLI's
 * `policy` and `source` (JSON and the applied text), the fleet sync's
 * `state` (JSON), the operator's controls (`paused`, `abortedAtMs`, and
 * `approvedAtMs` as a map by wave), and `history`, a list both append to.
 * A member `fleetm#<cluster/ns/name>` holds the fleet sync's `policy`,
 * `decision` and `health` and its own syncs' `observation` (JSON each).
 * Each writer SETs only its own attributes, so none overwrites another.
 */
import type { FleetPolicy } from '../../fleet/fleet-policy.js';
import type {
  FleetRolloutState,
  MemberDecision,
  MemberObservation,
} from '../../fleet/fleet-rollout-state.js';
import {
  FLEET_HISTORY_LIMIT,
  type FleetControls,
  type FleetHistoryEntry,
  type FleetMemberRecord,
  type FleetRolloutRecord,
  type MemberHealth,
} from '../../ports/fleet-rollouts.js';
import { type Item, readNumber, readString } from './dynamo-call.js';
import { KeyPrefix, PARTITION_KEY, partitionKey } from './table-schema.js';

/** The `kind` of fleet rollout records (the registry index's key). */
export const FLEET_ROLLOUT_KIND = 'fleet-rollout';

/** Returns the partition key of policy `name`'s record. */
export const fleetPk = (name: string): string =>
  partitionKey(KeyPrefix.fleet, name);

/** Returns the partition key of the member item of work-queue key `key`. */
export const memberPk = (key: string): string =>
  partitionKey(KeyPrefix.fleetMember, key);

/** Returns the JSON attribute `name`, parsed; throws when absent. */
const readJson = <T>(item: Item, name: string): T => {
  const text = readString(item, name);
  if (text === undefined) {
    throw new TypeError(`${item[PARTITION_KEY]?.S} has no ${name}`);
  }
  return JSON.parse(text) as T;
};

const readControls = (item: Item): FleetControls => {
  const abortedAtMs = readNumber(item, 'abortedAtMs');
  const approved = item.approvedAtMs?.M ?? {};
  return {
    paused: item.paused?.BOOL ?? false,
    ...(abortedAtMs === undefined ? {} : { abortedAtMs }),
    approvedAtMs: Object.fromEntries(
      Object.entries(approved).map(([wave, at]) => [wave, Number(at.N)])
    ),
  };
};

/**
 * Returns the history a record holds, newest last: a write that raced
 * another's trim may leave a few entries over the limit, which are not read.
 */
const readHistory = (item: Item): FleetHistoryEntry[] =>
  (item.history?.L ?? []).slice(-FLEET_HISTORY_LIMIT).map((entry) => ({
    atMs: Number(entry.M?.atMs?.N),
    note: entry.M?.note?.S ?? '',
  }));

/** Returns the record an item holds; throws when an attribute is unreadable. */
export const fleetRecordFromItem = (item: Item): FleetRolloutRecord => ({
  policy: readJson<FleetPolicy>(item, 'policy'),
  source: readString(item, 'source') ?? '',
  appliedAtMs: readNumber(item, 'appliedAtMs') ?? 0,
  state: readJson<FleetRolloutState>(item, 'state'),
  controls: readControls(item),
  history: readHistory(item),
});

/** Returns the member an item holds; throws when an attribute is unreadable. */
export const fleetMemberFromItem = (item: Item): FleetMemberRecord => {
  const pk = item[PARTITION_KEY]?.S ?? '';
  const observation = readString(item, 'observation');
  return {
    key: pk.slice(KeyPrefix.fleetMember.length),
    policy: readString(item, 'policy') ?? '',
    decision: readJson<MemberDecision>(item, 'decision'),
    health: readJson<MemberHealth>(item, 'health'),
    ...(observation === undefined
      ? {}
      : { observation: JSON.parse(observation) as MemberObservation }),
  };
};
