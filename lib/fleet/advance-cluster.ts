/**
 * One member cluster's walk through its wave's node steps: each step keeps
 * `partition` nodes on the stable revision; it is available once every other
 * node runs an available pod of the target revision, then bakes; a step not
 * available by the progress deadline, or more failed nodes than the budget,
 * fails the cluster. A cluster whose observation is stale or unreachable is
 * Unknown: it never advances, and its bake starts again once it is back.
 */
import { getScaledValueFromIntOrPercent } from '../reconcile/k8s/int-or-string.js';
import { formatDuration } from './duration.js';
import type { FleetPolicy, FleetWave } from './fleet-policy.js';
import type {
  ClusterRollout,
  MemberObservation,
} from './fleet-rollout-state.js';

/** Nodes a step keeps on the stable revision, of `desired`. */
export const keptNodes = (
  partition: number | string,
  desired: number
): number =>
  Math.min(getScaledValueFromIntOrPercent(partition, desired, false), desired);

/** What advancing one cluster needs to know. */
export interface ClusterStepInput {
  policy: FleetPolicy;
  wave: FleetWave;
  target: string;
  /** A fresh, reachable observation; undefined: the cluster is Unknown. */
  observed: MemberObservation | undefined;
  nowMs: number;
  /** Nothing starts or advances (paused, halted, aborted). */
  frozen: boolean;
  /**
   * The wave has not yet baked: a done cluster is still judged, so a pod
   * that breaks after it was available fails it before the next wave.
   */
  watching: boolean;
}

/** Why a cluster is Unknown. */
export const UNKNOWN_REASON =
  'the cluster is unreachable or has not reported recently';

const fail = (cr: ClusterRollout, reason: string): void => {
  cr.phase = 'Failed';
  cr.reason = reason;
};

/** Advances `cr` (mutated) by what the cluster shows now. */
export const advanceCluster = (
  cr: ClusterRollout,
  input: ClusterStepInput
): void => {
  const { policy, wave, observed: o, nowMs } = input;
  const done = cr.phase === 'Done';
  if (cr.phase === 'Failed' || cr.phase === 'Pending') return;
  if (done && !input.watching) return;
  if (o === undefined) {
    cr.phase = 'Unknown';
    cr.reason = UNKNOWN_REASON;
    delete cr.stepAvailableAtMs;
    return;
  }
  if (o.revision !== input.target) {
    if (done) return;
    cr.phase = 'Progressing';
    cr.reason = 'waits for the target template to be applied';
    return;
  }
  const step = wave.nodeSteps[cr.step] ?? { partition: 0, bakeMs: 0 };
  const need = o.desired - keptNodes(step.partition, o.desired);
  const nodeBudget = keptNodes(
    policy.failureBudget.maxFailedNodesPerCluster,
    o.desired
  );
  if (o.failedNodes > nodeBudget) {
    fail(
      cr,
      `${o.failedNodes} nodes failed the health gates (budget ${nodeBudget})`
    );
    return;
  }
  if (done && o.updatedAvailable >= need) return;
  if (o.updatedAvailable < need) {
    if (done) {
      // Available once, no longer: its deadline starts again now.
      cr.stepStartedAtMs = nowMs;
      delete cr.doneAtMs;
    }
    delete cr.stepAvailableAtMs;
    cr.phase = 'Progressing';
    cr.reason = `${o.updatedAvailable} of ${need} nodes run an available pod of the target revision`;
    const started = cr.stepStartedAtMs ?? nowMs;
    if (nowMs - started > policy.health.progressDeadlineMs) {
      fail(
        cr,
        `progress deadline ${formatDuration(policy.health.progressDeadlineMs)} passed: ${cr.reason}`
      );
    }
    return;
  }
  cr.stepAvailableAtMs ??= nowMs;
  cr.phase = 'Baking';
  cr.reason = `step ${cr.step + 1} of ${wave.nodeSteps.length} bakes for ${formatDuration(step.bakeMs)}`;
  if (input.frozen || nowMs < cr.stepAvailableAtMs + step.bakeMs) return;
  if (cr.step + 1 < wave.nodeSteps.length) {
    cr.step++;
    cr.phase = 'Progressing';
    cr.stepStartedAtMs = nowMs;
    delete cr.stepAvailableAtMs;
    delete cr.reason;
    return;
  }
  cr.phase = 'Done';
  cr.doneAtMs = nowMs;
  delete cr.reason;
};

/** Returns when the cluster's clock next matters (bake end, deadline). */
export const nextClusterTimeMs = (
  cr: ClusterRollout,
  wave: FleetWave,
  policy: FleetPolicy
): number | undefined => {
  const step = wave.nodeSteps[cr.step];
  if (cr.phase === 'Baking' && cr.stepAvailableAtMs !== undefined) {
    return cr.stepAvailableAtMs + (step?.bakeMs ?? 0);
  }
  if (cr.phase === 'Progressing' && cr.stepStartedAtMs !== undefined) {
    return cr.stepStartedAtMs + policy.health.progressDeadlineMs + 1;
  }
  return undefined;
};
