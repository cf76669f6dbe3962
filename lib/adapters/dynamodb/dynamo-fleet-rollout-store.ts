/**
 * FleetRolloutStore on the state table (items: fleet-rollout-item.ts, the
 * writes: fleet-rollout-updates.ts). Every write is an UpdateItem that SETs
 * only its writer's attributes, so the CLI (`applyPolicy`, `setControls`),
 * the fleet sync (`saveState`, `putDecisions`) and the member syncs
 * (`report`) never overwrite one another.
 *
 * `list` queries the sparse registry index for `kind = 'fleet-rollout'`
 * (eventually consistent, as the registry's listing is); every other read
 * is consistent.
 */
import {
  DeleteItemCommand,
  QueryCommand,
  type ReturnValue,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { FleetPolicy } from '../../fleet/fleet-policy.js';
import type {
  FleetRolloutState,
  MemberObservation,
} from '../../fleet/fleet-rollout-state.js';
import type {
  FleetControls,
  FleetMemberRecord,
  FleetRolloutRecord,
  FleetRolloutStore,
} from '../../ports/fleet-rollouts.js';
import {
  batchGetItems,
  buildExpression,
  type ConditionalOutcome,
  callDynamo,
  conditionalWrite,
  type Item,
  str,
} from './dynamo-call.js';
import { DynamoStateError } from './dynamo-state-error.js';
import { DynamoStore } from './dynamo-store.js';
import {
  FLEET_ROLLOUT_KIND,
  fleetMemberFromItem,
  fleetPk,
  fleetRecordFromItem,
  memberPk,
} from './fleet-rollout-item.js';
import {
  applyPolicyUpdate,
  decisionUpdate,
  type FleetUpdate,
  reportUpdate,
  saveStateUpdate,
  setControlsUpdate,
  trimHistoryUpdate,
} from './fleet-rollout-updates.js';
import {
  KIND_ATTRIBUTE,
  PARTITION_KEY,
  REGISTRY_INDEX,
} from './table-schema.js';

/**
 * Member writes in flight at once: each member is one UpdateItem
 * (BatchWriteItem only replaces items, and would drop the observations).
 */
const PARALLEL_WRITES = 10;

/**
 * Runs `write` for each item, PARALLEL_WRITES at a time, and throws the
 * failures once all have run (one as it is, more as an AggregateError).
 */
const writeEach = async <T>(
  items: readonly T[],
  write: (item: T) => Promise<unknown>,
  what: string
): Promise<void> => {
  const errors: unknown[] = [];
  for (let i = 0; i < items.length; i += PARALLEL_WRITES) {
    const results = await Promise.allSettled(
      items.slice(i, i + PARALLEL_WRITES).map(write)
    );
    for (const r of results) if (r.status === 'rejected') errors.push(r.reason);
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) {
    throw new AggregateError(errors, `${what}: ${errors.length} writes failed`);
  }
};

/** Returns `parse(item)`; an unreadable item becomes a DynamoStateError. */
const parseItem = <T>(
  operation: string,
  parse: (item: Item) => T,
  item: Item
): T => {
  try {
    return parse(item);
  } catch (e) {
    throw new DynamoStateError(`${operation} ${item[PARTITION_KEY]?.S}`, {
      cause: e,
    });
  }
};

/** Fleet rollout records and their members in DynamoDB. */
export class DynamoFleetRolloutStore
  extends DynamoStore
  implements FleetRolloutStore
{
  async applyPolicy(
    policy: FleetPolicy,
    source: string,
    nowMs: number
  ): Promise<void> {
    await this.#update(
      'apply fleet policy',
      fleetPk(policy.name),
      applyPolicyUpdate(policy, source, nowMs)
    );
  }

  async get(name: string): Promise<FleetRolloutRecord | undefined> {
    const item = await this.readLiveItem('get fleet rollout', fleetPk(name));
    return item && parseItem('read fleet rollout', fleetRecordFromItem, item);
  }

  /** Returns every record, sorted by policy name. */
  async list(): Promise<FleetRolloutRecord[]> {
    const records: FleetRolloutRecord[] = [];
    let start: Item | undefined;
    do {
      const page = await callDynamo('query fleet rollouts', () =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: REGISTRY_INDEX,
            KeyConditionExpression: '#kind = :kind',
            ExpressionAttributeNames: { '#kind': KIND_ATTRIBUTE },
            ExpressionAttributeValues: { ':kind': str(FLEET_ROLLOUT_KIND) },
            ExclusiveStartKey: start,
          })
        )
      );
      for (const item of page.Items ?? []) {
        records.push(
          parseItem('read fleet rollout', fleetRecordFromItem, item)
        );
      }
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return records.sort((a, b) => (a.policy.name < b.policy.name ? -1 : 1));
  }

  async deletePolicy(name: string): Promise<void> {
    await this.#delete('delete fleet rollout', fleetPk(name));
  }

  /** Saves nothing when the policy was deleted meanwhile. */
  async saveState(
    name: string,
    state: FleetRolloutState,
    notes: readonly string[],
    nowMs: number
  ): Promise<void> {
    const pk = fleetPk(name);
    const written = await this.#update(
      'save fleet rollout state',
      pk,
      saveStateUpdate(state, notes, nowMs),
      notes.length === 0 ? 'NONE' : 'UPDATED_NEW'
    );
    if (written.ok) await this.#trimHistory(pk, written.attributes);
  }

  /**
   * A given `paused` or `abortedAtMs` replaces the stored one; approvals
   * are added wave by wave.
   */
  async setControls(
    name: string,
    change: Partial<FleetControls>,
    note: string,
    nowMs: number
  ): Promise<boolean> {
    const pk = fleetPk(name);
    const written = await this.#update(
      'set fleet controls',
      pk,
      setControlsUpdate(change, note, nowMs),
      'UPDATED_NEW'
    );
    if (written.ok) await this.#trimHistory(pk, written.attributes);
    return written.ok;
  }

  async getMembers(
    keys: readonly string[]
  ): Promise<Map<string, FleetMemberRecord>> {
    const pks = [...new Set(keys)].map(memberPk);
    const members = new Map<string, FleetMemberRecord>();
    if (pks.length === 0) return members;
    const items = await callDynamo(`get ${pks.length} fleet members`, () =>
      batchGetItems(this.client, this.tableName, pks, true)
    );
    for (const item of items.values()) {
      const member = parseItem('read fleet member', fleetMemberFromItem, item);
      members.set(member.key, member);
    }
    return members;
  }

  async getMember(key: string): Promise<FleetMemberRecord | undefined> {
    const item = await this.readLiveItem('get fleet member', memberPk(key));
    return item && parseItem('read fleet member', fleetMemberFromItem, item);
  }

  async putDecisions(
    members: readonly Omit<FleetMemberRecord, 'observation'>[]
  ): Promise<void> {
    await writeEach(
      members,
      (m) =>
        this.#update('put fleet decision', memberPk(m.key), decisionUpdate(m)),
      `put ${members.length} fleet decisions`
    );
  }

  /** Writes the observation only onto a member item that exists. */
  async report(key: string, observation: MemberObservation): Promise<void> {
    await this.#update(
      'report fleet member',
      memberPk(key),
      reportUpdate(observation)
    );
  }

  async removeMembers(keys: readonly string[]): Promise<void> {
    await writeEach(
      [...new Set(keys)],
      (key) => this.#delete('remove fleet member', memberPk(key)),
      `remove ${keys.length} fleet members`
    );
  }

  /** Returns the outcome of one UpdateItem (`ok: false`: its condition failed). */
  #update(
    operation: string,
    pk: string,
    { names, ...expression }: FleetUpdate,
    returnValues: ReturnValue = 'NONE'
  ): Promise<ConditionalOutcome> {
    const built = buildExpression(expression);
    return conditionalWrite(`${operation} ${pk}`, () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(pk) },
          ...built,
          ExpressionAttributeNames: {
            ...built.ExpressionAttributeNames,
            ...names,
          },
          ReturnValues: returnValues,
        })
      )
    );
  }

  async #delete(operation: string, pk: string): Promise<void> {
    await callDynamo(`${operation} ${pk}`, () =>
      this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(pk) },
        })
      )
    );
  }

  /**
   * Trims the history a write took over the limit. A trim that fails (a
   * racing write, a throttle) is left to the next append: readers skip
   * the excess, and failing the write that succeeded would only have its
   * caller append the same notes twice.
   */
  async #trimHistory(pk: string, written: Item | undefined): Promise<void> {
    const trim = trimHistoryUpdate(written);
    if (trim === undefined) return;
    await this.#update('trim fleet history', pk, trim).catch(() => undefined);
  }
}
