/**
 * The budgets of one rolling update pass: upstream
 * `updatedDesiredNodeCounts` (pkg/controller/daemon/update.go) over the
 * strategy's scaled limits of pkg/controller/daemon/util/daemonset_util.go
 * (`SurgeCount`, `UnavailableCount`, `AllowsSurge`). Kruise's partition
 * filter narrows the budget, and rolling-update.ts's planner spends it.
 */
import { InvalidObjectError } from '../errors.js';
import { ADVANCED_DAEMON_SET, kindOf } from './k8s/daemon-set-kind.js';
import { getScaledValueFromIntOrPercent } from './k8s/int-or-string.js';
import { nameOf } from './k8s/meta.js';
import type { DaemonSet, Node, Pod } from './k8s/types.js';
import { daemonPlacement, type NodePlacement } from './node-should-run.js';

/** The budgets of one rolling update pass. */
export interface UpdateBudget {
  maxSurge: number;
  maxUnavailable: number;
  desiredNumberScheduled: number;
  /** `nodeToDaemonPods` plus an empty entry for each node that should run. */
  nodeToDaemonPods: Map<string, readonly Pod[]>;
}

const rollingUpdateOf = (ds: DaemonSet) =>
  ds.spec?.updateStrategy?.type === 'RollingUpdate'
    ? ds.spec.updateStrategy.rollingUpdate
    : undefined;

/** Returns maxSurge scaled to `numberToSchedule` (0 unless RollingUpdate). */
export const surgeCount = (ds: DaemonSet, numberToSchedule: number): number => {
  const r = rollingUpdateOf(ds);
  if (r?.maxSurge === undefined || r.maxSurge === null) return 0;
  return getScaledValueFromIntOrPercent(r.maxSurge, numberToSchedule);
};

/** Returns maxUnavailable scaled to `numberToSchedule` (0 unless RollingUpdate). */
export const unavailableCount = (
  ds: DaemonSet,
  numberToSchedule: number
): number => {
  const r = rollingUpdateOf(ds);
  if (r === undefined || r === null) return 0;
  // The own kind has no defaulting webhook: Kruise's maxUnavailable 1 for
  // (nil, nil) is applied at read time (spec/kruise-ads.md §1.6), here as
  // 0, which updatedDesiredNodeCounts turns into 1 when surge is 0 too.
  if (r.maxUnavailable === undefined && kindOf(ds) === ADVANCED_DAEMON_SET) {
    return 0;
  }
  return getScaledValueFromIntOrPercent(r.maxUnavailable, numberToSchedule);
};

/** Returns whether the DaemonSet's strategy allows surge pods. */
export const allowsSurge = (ds: DaemonSet): boolean => {
  try {
    return surgeCount(ds, 1) > 0;
  } catch {
    return false;
  }
};

/** Returns the budgets and node map of upstream `updatedDesiredNodeCounts`. */
export const updatedDesiredNodeCounts = (
  ds: DaemonSet,
  nodes: readonly Node[],
  nodeToDaemonPods: ReadonlyMap<string, readonly Pod[]>,
  placement: NodePlacement = daemonPlacement(ds)
): UpdateBudget => {
  const withEmpty = new Map<string, readonly Pod[]>();
  let desired = 0;
  for (const node of nodes) {
    const name = nameOf(node);
    if (!placement(node).shouldRun) continue;
    desired++;
    withEmpty.set(name, nodeToDaemonPods.get(name) ?? []);
  }
  for (const [name, pods] of nodeToDaemonPods) {
    if (!withEmpty.has(name)) withEmpty.set(name, pods);
  }
  let maxUnavailable: number;
  let maxSurge: number;
  try {
    maxUnavailable = unavailableCount(ds, desired);
    maxSurge = surgeCount(ds, desired);
  } catch (cause) {
    throw new InvalidObjectError(
      `invalid value for MaxUnavailable or MaxSurge of DaemonSet ${ds.metadata?.namespace}/${ds.metadata?.name}`,
      { cause }
    );
  }
  // An impossible configuration (both 0) falls back to unavailable = 1.
  if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  return {
    maxSurge,
    maxUnavailable,
    desiredNumberScheduled: desired,
    nodeToDaemonPods: withEmpty,
  };
};
