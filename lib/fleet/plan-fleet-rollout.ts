/**
 * The fleet rollout's level-triggered sync, as a pure decision: from the
 * policy, the registry, what each member's own DaemonSet syncs last
 * reported and the kept state, it returns the next state, one decision per
 * member (which revision may replace which, on all but how many nodes) and
 * when to look again (bake ends, deadlines). The product never writes a
 * template: GitOps applies it everywhere, and the decisions hold each
 * cluster until its wave and step.
 *
 * Invariants: no wave starts before the one before it is done, baked and
 * (if manual) approved; never more clusters of a wave in progress than
 * `maxConcurrentClusters`; no step advances on Unknown health; past
 * `maxFailedClusters` failures the rollout halts and nothing advances; a
 * rollout is pinned to the revision each cluster showed when it started,
 * and a newer template supersedes it (it starts over, holding everything).
 */
import { getScaledValueFromIntOrPercent } from '../reconcile/k8s/int-or-string.js';
import {
  advanceCluster,
  nextClusterTimeMs,
  UNKNOWN_REASON,
} from './advance-cluster.js';
import type { FleetWave } from './fleet-policy.js';
import type {
  ClusterRollout,
  FleetRolloutInput,
  FleetRolloutPlan,
  FleetRolloutState,
  MemberObservation,
} from './fleet-rollout-state.js';
import { decide } from './member-decisions.js';
import { pin } from './pin-revisions.js';
import { assignWaves } from './wave-membership.js';

/** Returns whether every cluster of the wave is finished. */
const waveFinished = (
  s: FleetRolloutState,
  clusters: readonly string[],
  countUnknownAsFailed: boolean
): boolean =>
  clusters.every((c) => {
    const phase = s.clusters[c]?.phase;
    return (
      phase === 'Done' ||
      phase === 'Failed' ||
      (countUnknownAsFailed && phase === 'Unknown') ||
      (s.target[c] === undefined && phase !== 'Unknown')
    );
  });

const freshObservation = (
  input: FleetRolloutInput,
  id: string
): MemberObservation | undefined => {
  const o = input.observations.get(id);
  return o?.reachable && input.nowMs - o.observedAtMs <= input.unknownAfterMs
    ? o
    : undefined;
};

/** Walks the waves in order, starting and advancing what the policy allows. */
const advanceWaves = (
  s: FleetRolloutState,
  waves: { name: string; clusters: string[] }[],
  input: FleetRolloutInput,
  notes: string[]
): void => {
  const { policy, nowMs } = input;
  const frozen = s.paused || s.aborted || s.phase === 'Halted';
  const countUnknown = policy.onUnknown === 'countAsFailed';
  for (const [w, members] of waves.entries()) {
    const wave = policy.waves[w] as FleetWave;
    if (wave.manualApproval && !s.approvedWaves.includes(wave.name)) {
      if (members.clusters.some((c) => s.target[c] !== undefined)) {
        notes.push(`wave ${wave.name} waits for approval`);
        return;
      }
    }
    const limit = Math.max(
      getScaledValueFromIntOrPercent(
        wave.maxConcurrentClusters,
        members.clusters.length
      ),
      1
    );
    for (const c of members.clusters) {
      if (s.target[c] === undefined) {
        // A member that has not shown the new template may be one that
        // cannot: while it is silent its wave is not done.
        if (freshObservation(input, c) === undefined) {
          s.clusters[c] = { phase: 'Unknown', step: 0, reason: UNKNOWN_REASON };
        } else if (s.clusters[c]?.phase === 'Unknown') {
          delete s.clusters[c];
        }
        continue;
      }
      const cr: ClusterRollout = s.clusters[c] ?? { phase: 'Pending', step: 0 };
      s.clusters[c] = cr;
      const inProgress = members.clusters.filter((x) =>
        ['Progressing', 'Baking', 'Unknown'].includes(
          s.clusters[x]?.phase ?? ''
        )
      ).length;
      if (cr.phase === 'Pending' && !frozen && inProgress < limit) {
        cr.phase = 'Progressing';
        cr.stepStartedAtMs = nowMs;
        notes.push(`${c}: wave ${wave.name} starts`);
      }
      const before = cr.phase;
      const doneAt = s.waveDoneAtMs[wave.name];
      advanceCluster(cr, {
        policy,
        wave,
        target: s.target[c] as string,
        observed: freshObservation(input, c),
        nowMs,
        frozen,
        watching: doneAt === undefined || nowMs < doneAt + wave.bakeMs,
      });
      if (
        cr.phase !== before &&
        (cr.phase === 'Failed' || cr.phase === 'Done')
      ) {
        notes.push(`${c}: ${cr.phase}${cr.reason ? ` (${cr.reason})` : ''}`);
      }
    }
    if (!waveFinished(s, members.clusters, countUnknown)) {
      // A cluster judged again during the wave's bake: it bakes anew.
      delete s.waveDoneAtMs[wave.name];
      return;
    }
    s.waveDoneAtMs[wave.name] ??= nowMs;
    if (nowMs < (s.waveDoneAtMs[wave.name] as number) + wave.bakeMs) return;
  }
};

/** Halts past the failure budget; finishes when every wave is done. */
const settle = (
  s: FleetRolloutState,
  waves: { name: string; clusters: string[] }[],
  input: FleetRolloutInput,
  notes: string[]
): void => {
  if (s.aborted) {
    if (s.phase !== 'Aborted') notes.push('aborted: every cluster held');
    s.phase = 'Aborted';
    return;
  }
  const { policy } = input;
  const failed = Object.entries(s.clusters).filter(
    ([c, cr]) =>
      s.target[c] !== undefined &&
      (cr.phase === 'Failed' ||
        (policy.onUnknown === 'countAsFailed' && cr.phase === 'Unknown'))
  );
  if (
    s.phase !== 'Halted' &&
    failed.length > policy.failureBudget.maxFailedClusters
  ) {
    s.phase = 'Halted';
    s.haltReason = `${failed.length} clusters failed (budget ${policy.failureBudget.maxFailedClusters}): ${failed.map(([c]) => c).join(', ')}`;
    notes.push(`halted: ${s.haltReason}`);
    return;
  }
  if (s.phase === 'Halted') return;
  s.phase = s.paused ? 'Paused' : 'Progressing';
  const last = waves.at(-1)?.name;
  const allBaked = waves.every((w, i) => {
    const doneAt = s.waveDoneAtMs[w.name];
    return (
      doneAt !== undefined &&
      input.nowMs >= doneAt + (policy.waves[i]?.bakeMs ?? 0)
    );
  });
  if (last === undefined || !allBaked) return;
  for (const [c, cr] of Object.entries(s.clusters)) {
    const target = s.target[c];
    if (cr.phase !== 'Done' || target === undefined) continue;
    s.stable[c] = target;
    delete s.target[c];
  }
  s.phase = 'Done';
  notes.push('rollout done');
};

/**
 * Returns the next state and decisions of one fleet rollout.
 *
 * @example
 * const plan = planFleetRollout({ policy, members, observations, state, nowMs, unknownAfterMs });
 * await store.save(plan.state, plan.decisions);
 */
export const planFleetRollout = (
  input: FleetRolloutInput
): FleetRolloutPlan => {
  const s: FleetRolloutState = structuredClone(input.state);
  const notes: string[] = [];
  const { waves, unassigned } = assignWaves(input.policy, input.members);
  const ids = [...waves.flatMap((w) => w.clusters), ...unassigned];
  for (const id of unassigned) notes.push(`${id}: in no wave; held`);
  pin(s, ids, input, notes);
  const waveOf = new Map<string, FleetWave>();
  waves.forEach((w, i) => {
    for (const c of w.clusters)
      waveOf.set(c, input.policy.waves[i] as FleetWave);
  });
  if (
    Object.keys(s.target).length > 0 &&
    s.phase !== 'Idle' &&
    s.phase !== 'Done'
  ) {
    advanceWaves(s, waves, input, notes);
    settle(s, waves, input, notes);
  } else if (s.phase === 'Idle' || Object.keys(s.target).length === 0) {
    s.phase = s.startedAtMs === undefined ? 'Idle' : 'Done';
  }
  const times = Object.entries(s.clusters).flatMap(([c, cr]) => {
    const wave = waveOf.get(c);
    const t = wave ? nextClusterTimeMs(cr, wave, input.policy) : undefined;
    return t === undefined ? [] : [t];
  });
  input.policy.waves.forEach((w) => {
    const doneAt = s.waveDoneAtMs[w.name];
    if (doneAt !== undefined) times.push(doneAt + w.bakeMs);
  });
  // While it runs, the fleet sync looks at half the Unknown limit: it asks
  // quiet members to report again, and one that stopped turns Unknown.
  const running = s.phase === 'Progressing' || s.phase === 'Paused';
  const next = Math.min(
    ...times.filter((t) => t > input.nowMs).map((t) => t - input.nowMs),
    running ? input.unknownAfterMs / 2 : Number.POSITIVE_INFINITY
  );
  return {
    state: s,
    decisions: decide(s, ids, waveOf),
    ...(Number.isFinite(next) ? { requeueAfterMs: next } : {}),
    notes,
  };
};
