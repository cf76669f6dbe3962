/**
 * In-process FleetRolloutStore for the local run and tests: records and
 * members in Maps, copied on the way in and on the way out
 * (structuredClone), so a caller never holds a reference into stored state,
 * just as with a DynamoDB read. The DynamoDB twin keeps the same contract
 * (test/helpers/fleet-rollout-store-contract.ts).
 */
import type { FleetPolicy } from '../../fleet/fleet-policy.js';
import {
  type FleetRolloutState,
  idleFleetRollout,
  type MemberObservation,
} from '../../fleet/fleet-rollout-state.js';
import {
  FLEET_HISTORY_LIMIT,
  type FleetControls,
  type FleetHistoryEntry,
  type FleetMemberRecord,
  type FleetRolloutRecord,
  type FleetRolloutStore,
} from '../../ports/fleet-rollouts.js';

/** Returns `history` with `notes` appended at `nowMs`, capped, oldest dropped. */
const appendHistory = (
  history: readonly FleetHistoryEntry[],
  notes: readonly string[],
  nowMs: number
): FleetHistoryEntry[] =>
  [...history, ...notes.map((note) => ({ atMs: nowMs, note }))].slice(
    -FLEET_HISTORY_LIMIT
  );

/**
 * Returns `controls` with `change` merged in: a given `paused` or
 * `abortedAtMs` replaces the stored one, approvals are added wave by wave.
 */
const mergeControls = (
  controls: FleetControls,
  change: Partial<FleetControls>
): FleetControls => {
  const abortedAtMs = change.abortedAtMs ?? controls.abortedAtMs;
  return {
    paused: change.paused ?? controls.paused,
    ...(abortedAtMs === undefined ? {} : { abortedAtMs }),
    approvedAtMs: { ...controls.approvedAtMs, ...change.approvedAtMs },
  };
};

/** Fleet rollouts kept in Maps. */
export class MemoryFleetRolloutStore implements FleetRolloutStore {
  readonly #records = new Map<string, FleetRolloutRecord>();
  readonly #members = new Map<string, FleetMemberRecord>();

  async applyPolicy(
    policy: FleetPolicy,
    source: string,
    nowMs: number
  ): Promise<void> {
    const stored = this.#records.get(policy.name);
    this.#records.set(policy.name, {
      state: stored?.state ?? idleFleetRollout(),
      controls: stored?.controls ?? { paused: false, approvedAtMs: {} },
      history: stored?.history ?? [],
      policy: structuredClone(policy),
      source,
      appliedAtMs: nowMs,
    });
  }

  async get(name: string): Promise<FleetRolloutRecord | undefined> {
    const stored = this.#records.get(name);
    return stored && structuredClone(stored);
  }

  /** Returns every record, sorted by policy name. */
  async list(): Promise<FleetRolloutRecord[]> {
    return [...this.#records.values()]
      .sort((a, b) => (a.policy.name < b.policy.name ? -1 : 1))
      .map((r) => structuredClone(r));
  }

  async deletePolicy(name: string): Promise<void> {
    this.#records.delete(name);
  }

  /** Saves nothing when the policy was deleted meanwhile. */
  async saveState(
    name: string,
    state: FleetRolloutState,
    notes: readonly string[],
    nowMs: number
  ): Promise<void> {
    const stored = this.#records.get(name);
    if (stored === undefined) return;
    this.#records.set(name, {
      ...stored,
      state: structuredClone(state),
      history: appendHistory(stored.history, notes, nowMs),
    });
  }

  async setControls(
    name: string,
    change: Partial<FleetControls>,
    note: string,
    nowMs: number
  ): Promise<boolean> {
    const stored = this.#records.get(name);
    if (stored === undefined) return false;
    this.#records.set(name, {
      ...stored,
      controls: mergeControls(stored.controls, structuredClone(change)),
      history: appendHistory(stored.history, [note], nowMs),
    });
    return true;
  }

  async getMembers(
    keys: readonly string[]
  ): Promise<Map<string, FleetMemberRecord>> {
    const found = new Map<string, FleetMemberRecord>();
    for (const key of keys) {
      const member = this.#members.get(key);
      if (member !== undefined) found.set(key, structuredClone(member));
    }
    return found;
  }

  async getMember(key: string): Promise<FleetMemberRecord | undefined> {
    const member = this.#members.get(key);
    return member && structuredClone(member);
  }

  async putDecisions(
    members: readonly Omit<FleetMemberRecord, 'observation'>[]
  ): Promise<void> {
    for (const { key, policy, decision, health } of members) {
      const observation = this.#members.get(key)?.observation;
      this.#members.set(key, {
        ...structuredClone({ key, policy, decision, health }),
        ...(observation === undefined ? {} : { observation }),
      });
    }
  }

  async report(key: string, observation: MemberObservation): Promise<void> {
    const member = this.#members.get(key);
    if (member === undefined) return;
    this.#members.set(key, {
      ...member,
      observation: structuredClone(observation),
    });
  }

  async removeMembers(keys: readonly string[]): Promise<void> {
    for (const key of keys) this.#members.delete(key);
  }
}
