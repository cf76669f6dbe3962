/**
 * Which ownership mode fits a cluster: apps/v1 only where no other
 * DaemonSet controller is active (managed clusters always run one);
 * apps/v1+OnDelete only where the cluster's own controller is, since it
 * creates the pods; told by who writes the status of the cluster's
 * DaemonSets. Serves `clusters
 * check` (which `clusters add` runs before writing) and the question
 * `npm start` asks before an apps/v1 run.
 */
import { findRivalDaemonSetController } from '../../policy/fight-detection.js';
import type { ClusterRecord } from '../../ports/index.js';
import { describeError, withTimeout } from '../describe-error.js';
import type {
  CheckConnection,
  CheckDeps,
  ClusterCheck,
} from './check-types.js';

/** Whether another DaemonSet controller is active on a cluster. */
export type RivalController =
  | { found: false }
  | { found: true; manager: string; daemonSet: string; problem: string }
  | { found: undefined; reason: string };

/**
 * Looks for another DaemonSet controller: one that writes the status of
 * the cluster's DaemonSets (kube-system's, where managed clusters run theirs).
 */
const probeRivalController = async (
  cluster: CheckConnection
): Promise<RivalController> => {
  try {
    const rival = findRivalDaemonSetController(
      await cluster.probe.daemonSetStatusManagers()
    );
    return rival === undefined
      ? { found: false }
      : {
          found: true,
          manager: rival.manager,
          daemonSet: rival.daemonSet,
          problem: `ownership: another DaemonSet controller is active here (${rival.manager} writes the status of ${rival.daemonSet}); register the cluster with --ownership apps/v1+OnDelete to roll out OnDelete DaemonSets that opt in, or apps.dsr.dev/v1beta1 and use AdvancedDaemonSets, or turn that controller off`,
        };
  } catch (e) {
    return {
      found: undefined,
      reason: `could not tell whether another DaemonSet controller is active: ${describeError(e)}`,
    };
  }
};

/**
 * Says which ownership mode fits: an apps/v1 registration where another
 * DaemonSet controller writes DaemonSet status would fight it (and be
 * fenced), so it is a problem, with the mode to use instead.
 */
export const reviewOwnership = async (
  cluster: CheckConnection,
  check: ClusterCheck,
  record: ClusterRecord
): Promise<void> => {
  if (record.ownership === 'apps.dsr.dev/v1beta1') {
    check.notes.push(
      "owns AdvancedDaemonSets (apps.dsr.dev) only; the cluster's own controller keeps apps/v1 DaemonSets"
    );
    return;
  }
  const rival = await probeRivalController(cluster);
  if (rival.found === undefined) check.notes.push(rival.reason);
  if (record.ownership === 'apps/v1') {
    if (rival.found === true) check.problems.push(rival.problem);
    return;
  }
  check.notes.push(
    rival.found === true
      ? `fits: the cluster's own DaemonSet controller is active (${rival.manager}); it keeps creating pods and writing status, and the reconciler rolls out only OnDelete DaemonSets annotated apps.dsr.dev/rollout, by deleting old pods`
      : rival.found === false
        ? "no other DaemonSet controller was seen writing DaemonSet status (no DaemonSets yet, or its controller is off); apps/v1+OnDelete needs the cluster's own controller on, as on EKS, GKE and AKS, else use --ownership apps/v1"
        : "apps/v1+OnDelete needs the cluster's own DaemonSet controller on, as on EKS, GKE and AKS"
  );
};

/**
 * Returns whether another DaemonSet controller is active on the record's
 * cluster, as `npm start` asks before an apps/v1 run; the probe gets
 * `timeoutMs`. Never throws for a failing cluster.
 */
export const findRivalController = async (
  record: ClusterRecord,
  deps: Pick<CheckDeps, 'connect' | 'timeoutMs'>
): Promise<RivalController> => {
  let cluster: CheckConnection;
  try {
    cluster = await deps.connect(record);
  } catch (e) {
    return {
      found: undefined,
      reason: `could not tell whether another DaemonSet controller is active: cannot connect: ${describeError(e)}`,
    };
  }
  try {
    return await withTimeout(
      probeRivalController(cluster),
      deps.timeoutMs,
      () => cluster.close()
    );
  } catch {
    return {
      found: undefined,
      reason: `could not tell whether another DaemonSet controller is active: no answer within ${deps.timeoutMs / 1000} s`,
    };
  } finally {
    cluster.close();
  }
};

/**
 * Returns what the ownership question alone says before a record is
 * written: a refusal when apps/v1 ownership meets another active DaemonSet
 * controller, a warning when it cannot tell; nothing for the own kind or
 * with `skipCheck`. (`clusters add` runs the whole check instead.)
 */
export const reviewOwnershipBeforeAdd = async (
  record: ClusterRecord,
  skipCheck: boolean,
  deps: Pick<CheckDeps, 'connect' | 'timeoutMs'>
): Promise<{ refusal?: string; warnings: string[] }> => {
  if (record.ownership !== 'apps/v1' || skipCheck) return { warnings: [] };
  const rival = await findRivalController(record, deps);
  if (rival.found === true) {
    return {
      refusal: `not registered: ${rival.problem} (--skip-check registers it anyway)`,
      warnings: [],
    };
  }
  return {
    warnings: rival.found === undefined ? [`warning: ${rival.reason}`] : [],
  };
};
