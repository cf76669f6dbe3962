/**
 * The member side of fleet rollouts over the store and the work queue: a
 * member sync reads its key's hold, and its report wakes the fleet rollout
 * only when what it saw changed. A report that only refreshes the
 * timestamp (the fleet sync's heartbeat asks for one) is written without a
 * wake-up: the fleet sync reads it at its next look.
 */

import type { MemberObservation } from '../fleet/fleet-rollout-state.js';
import { formatFleetKey } from '../keys.js';
import type {
  FleetMemberRecord,
  FleetMembership,
  FleetRolloutStore,
  WorkQueue,
} from '../ports/index.js';

/** Returns whether two observations differ beyond their timestamps. */
export const observationChanged = (
  before: MemberObservation | undefined,
  after: MemberObservation
): boolean =>
  before === undefined ||
  before.reachable !== after.reachable ||
  before.revision !== after.revision ||
  before.desired !== after.desired ||
  before.updatedAvailable !== after.updatedAvailable ||
  before.failedNodes !== after.failedNodes ||
  before.excludedNodes !== after.excludedNodes;

/** FleetMembership on a FleetRolloutStore and the work queue. */
export class StoreFleetMembership implements FleetMembership {
  readonly #store: Pick<FleetRolloutStore, 'getMember' | 'report'>;
  readonly #queue: Pick<WorkQueue, 'add'>;

  constructor(options: {
    store: Pick<FleetRolloutStore, 'getMember' | 'report'>;
    queue: Pick<WorkQueue, 'add'>;
  }) {
    this.#store = options.store;
    this.#queue = options.queue;
  }

  memberOf(key: string): Promise<FleetMemberRecord | undefined> {
    return this.#store.getMember(key);
  }

  /**
   * Reports that the member's cluster did not answer (its sync failed
   * with no HTTP answer): the fleet rollout counts it Unknown at once
   * instead of when its last report grows stale.
   */
  async reportUnreachable(key: string, nowMs: number): Promise<void> {
    const member = await this.#store.getMember(key);
    if (member?.observation === undefined) return;
    await this.report(member, {
      ...member.observation,
      reachable: false,
      observedAtMs: nowMs,
    });
  }

  async report(
    member: FleetMemberRecord,
    observation: MemberObservation
  ): Promise<void> {
    await this.#store.report(member.key, observation);
    if (observationChanged(member.observation, observation)) {
      await this.#queue.add(formatFleetKey(member.policy));
    }
  }
}
