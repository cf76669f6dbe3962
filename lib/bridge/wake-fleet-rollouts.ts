/**
 * The fleet rollouts' part of the dispatcher tick: `dsr fleet` verbs write
 * the state table and nothing else, so each tick puts back on the work
 * queue the `fleet:<policy>` key of every policy an operator changed in the
 * last ticks, and of every policy that has not yet pinned a cluster. A
 * rollout under way needs none of this: its sync asks to look again
 * itself, and its members' reports wake it. A redundant wake costs one
 * sync that writes nothing.
 */
import { toError } from '../errors.js';
import { formatFleetKey } from '../keys.js';
import type {
  Clock,
  FleetRolloutRecord,
  FleetRolloutStore,
  Logger,
  WorkQueue,
} from '../ports/index.js';
import { DISPATCH_TICK_MS } from './dispatch-bridge-turns.js';

/** A change this recent is woken (two and a half ticks: two tries). */
export const FLEET_WAKE_WINDOW_MS = 2.5 * DISPATCH_TICK_MS;

/** What waking fleet rollouts needs. */
export interface FleetWakeDeps {
  store: Pick<FleetRolloutStore, 'list'>;
  queue: Pick<WorkQueue, 'add'>;
  clock: Clock;
  logger: Logger;
}

/** Returns when the record last changed: applied, or a history line. */
const changedAtMs = (r: FleetRolloutRecord): number =>
  Math.max(r.appliedAtMs, r.history.at(-1)?.atMs ?? 0);

/** Returns the policies a tick at `nowMs` wakes. */
export const fleetRolloutsToWake = (
  records: readonly FleetRolloutRecord[],
  nowMs: number,
  windowMs = FLEET_WAKE_WINDOW_MS
): string[] =>
  records
    .filter(
      (r) =>
        nowMs - changedAtMs(r) <= windowMs ||
        Object.keys(r.state.stable).length === 0
    )
    .map((r) => r.policy.name);

/**
 * Wakes the fleet rollouts that need it; returns how many it woke. A
 * failed wake is logged and left to the next tick.
 */
export const wakeFleetRollouts = async (
  deps: FleetWakeDeps
): Promise<number> => {
  const names = fleetRolloutsToWake(await deps.store.list(), deps.clock.now());
  let woken = 0;
  for (const name of names) {
    try {
      await deps.queue.add(formatFleetKey(name));
      woken++;
    } catch (e) {
      deps.logger.error('fleet rollout not woken', {
        fleetRollout: name,
        error: toError(e).message,
      });
    }
  }
  return woken;
};
