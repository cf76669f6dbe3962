/**
 * The fleet rollout's sync, the second controller on the work queue: one
 * level-triggered pass per `fleet:<policy>` key. It reads the policy, the
 * registry and each member's last report (one batch read, no cluster
 * list), plans (plan-fleet-rollout.ts), writes the decisions that changed,
 * wakes the members whose hold changed, and asks to look again when the
 * next bake or deadline ends. Running it twice on the same state writes
 * nothing new, so a redelivered key is harmless.
 *
 * While a rollout runs, members whose report is older than a quarter of
 * the Unknown limit are woken to report again (a heartbeat), so a quiet
 * but reachable cluster never turns Unknown; one that cannot sync does.
 */

import { withControls } from '../fleet/fleet-controls.js';
import { fleetMembersOf } from '../fleet/fleet-members.js';
import type {
  MemberDecision,
  MemberObservation,
  RolloutPhase,
} from '../fleet/fleet-rollout-state.js';
import { planFleetRollout } from '../fleet/plan-fleet-rollout.js';
import { formatDaemonSetKey } from '../keys.js';
import type {
  Clock,
  ClusterRegistry,
  FleetMemberRecord,
  FleetRolloutStore,
  Logger,
  MemberHealth,
  WorkQueue,
} from '../ports/index.js';
import type { SyncResult } from './sync-daemon-set.js';

/** What one fleet sync returns: when to look again, and the phase. */
export interface FleetSyncResult extends SyncResult {
  phase?: RolloutPhase;
}

/** A member report older than this makes its cluster Unknown. */
export const UNKNOWN_AFTER_MS = 120_000;

/** What the fleet sync needs. */
export interface FleetSyncDeps {
  store: FleetRolloutStore;
  registry: Pick<ClusterRegistry, 'list'>;
  queue: Pick<WorkQueue, 'add'>;
  clock: Clock;
  logger: Logger;
  /** Overrides UNKNOWN_AFTER_MS (tests, the local run). */
  unknownAfterMs?: number;
}

const sameDecision = (a: MemberDecision, b: MemberDecision): boolean =>
  a.stable === b.stable &&
  a.target === b.target &&
  String(a.partition) === String(b.partition);

const sameHealth = (a: MemberHealth, b: MemberHealth): boolean =>
  a.maxRestartsPerPod === b.maxRestartsPerPod &&
  a.failOnWaitingReasons.join() === b.failOnWaitingReasons.join();

/**
 * Syncs the fleet rollout of policy `name`.
 *
 * @example
 * const result = await syncFleetRollout('node-agent', deps);
 */
export const syncFleetRollout = async (
  name: string,
  deps: FleetSyncDeps
): Promise<FleetSyncResult> => {
  const record = await deps.store.get(name);
  if (record === undefined) {
    deps.logger.debug('fleet rollout policy not found; nothing to do');
    return {};
  }
  const { policy } = record;
  const nowMs = deps.clock.now();
  const unknownAfterMs = deps.unknownAfterMs ?? UNKNOWN_AFTER_MS;
  const { records } = await deps.registry.list();
  const registered = fleetMembersOf(policy, records);
  const keyOf = (cluster: string) =>
    formatDaemonSetKey({
      cluster,
      namespace: policy.target.namespace,
      name: policy.target.name,
    });
  const stored = await deps.store.getMembers(
    registered.map((r) => keyOf(r.id))
  );
  // A DaemonSet another policy covers stays with it: the first applied wins.
  const fits = registered.filter(
    (r) => (stored.get(keyOf(r.id))?.policy ?? name) === name
  );
  const observations = new Map<string, MemberObservation>();
  for (const r of fits) {
    const o = stored.get(keyOf(r.id))?.observation;
    if (o !== undefined) observations.set(r.id, o);
  }
  const state = withControls(record.state, record.controls);
  const plan = planFleetRollout({
    policy,
    members: fits,
    observations,
    state,
    nowMs,
    unknownAfterMs,
  });
  const health: MemberHealth = {
    maxRestartsPerPod: policy.health.maxRestartsPerPod,
    failOnWaitingReasons: policy.health.failOnWaitingReasons,
  };
  const changed: Omit<FleetMemberRecord, 'observation'>[] = [];
  for (const [cluster, decision] of Object.entries(plan.decisions)) {
    const key = keyOf(cluster);
    const before = stored.get(key);
    if (
      before === undefined ||
      !sameDecision(before.decision, decision) ||
      !sameHealth(before.health, health)
    ) {
      changed.push({ key, policy: name, decision, health });
    }
  }
  if (changed.length > 0) await deps.store.putDecisions(changed);
  // A cluster that left the policy's clusters (relabelled, removed) is no
  // longer held.
  const left = Object.keys(record.state.stable).filter(
    (c) => plan.decisions[c] === undefined
  );
  if (left.length > 0) {
    const ours = left.filter(
      (c) => (stored.get(keyOf(c))?.policy ?? name) === name
    );
    await deps.store.removeMembers(ours.map(keyOf));
    for (const c of left) {
      delete plan.state.stable[c];
      delete plan.state.target[c];
      delete plan.state.clusters[c];
      plan.notes.push(`${c}: no longer covered; released`);
      await deps.queue.add(keyOf(c));
    }
  }
  if (
    plan.notes.length > 0 ||
    JSON.stringify(plan.state) !== JSON.stringify(state)
  ) {
    await deps.store.saveState(name, plan.state, plan.notes, nowMs);
  }
  for (const note of plan.notes) deps.logger.info(note, { fleetRollout: name });
  const running = plan.state.phase === 'Progressing';
  // The planner looks again at half the Unknown limit; a member older than
  // a quarter of it reports before the next look, however late that comes.
  const heartbeatMs = Math.floor(unknownAfterMs / 4);
  // A rollout that starts asks every member to report: one that cannot
  // answer is then Unknown before its wave, not taken as done.
  const started = plan.state.startedAtMs !== state.startedAtMs;
  const toWake = new Set(changed.map((m) => m.key));
  for (const cluster of Object.keys(plan.decisions)) {
    const o = observations.get(cluster);
    const ageMs =
      o === undefined ? Number.POSITIVE_INFINITY : nowMs - o.observedAtMs;
    const never = ageMs === Number.POSITIVE_INFINITY;
    if (never || started || (running && ageMs > heartbeatMs)) {
      toWake.add(keyOf(cluster));
    }
  }
  for (const key of toWake) await deps.queue.add(key);
  const { requeueAfterMs } = plan;
  const phase = plan.state.phase;
  return requeueAfterMs === undefined ? { phase } : { requeueAfterMs, phase };
};
