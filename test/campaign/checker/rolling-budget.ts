/**
 * A DaemonSet's surge and unavailability allowances, ported from upstream
 * `SurgeCount`, `UnavailableCount`, `AllowsSurge`
 * (pkg/controller/daemon/util/daemonset_util.go), `updatedDesiredNodeCounts`
 * (update.go) and apimachinery `GetScaledValueFromIntOrPercent`.
 */
import type { DaemonSet, IntOrString } from './kube-objects.js';
import { onDeleteControls } from './on-delete-controls.js';

/** Returns whether the DaemonSet updates with the RollingUpdate strategy. */
export const isRollingUpdate = (ds: DaemonSet): boolean =>
  (ds.spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';

/**
 * Returns whether some controller rolls the DaemonSet's pods out within
 * a budget: RollingUpdate, or OnDelete opted in to the product's rollout.
 */
export const isRolledOut = (ds: DaemonSet): boolean =>
  isRollingUpdate(ds) || onDeleteControls(ds) !== undefined;

/**
 * Returns an int-or-percent scaled against `total` (a percent rounds up when
 * `roundUp`), or undefined when the value is malformed.
 */
export const scaledValue = (
  value: IntOrString,
  total: number,
  roundUp: boolean
): number | undefined => {
  if (typeof value === 'number') return value;
  const match = /^(\d+)%$/.exec(value);
  if (!match) return undefined;
  const exact = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
};

/** Returns upstream SurgeCount: 0 unless RollingUpdate sets maxSurge. */
export const surgeCount = (ds: DaemonSet, desired: number): number => {
  const maxSurge = ds.spec.updateStrategy?.rollingUpdate?.maxSurge;
  if (!isRollingUpdate(ds) || maxSurge === undefined) return 0;
  return scaledValue(maxSurge, desired, true) ?? 0;
};

/** Returns upstream AllowsSurge: may a node hold an old and a new pod. */
export const allowsSurge = (ds: DaemonSet): boolean => surgeCount(ds, 1) > 0;

/**
 * Returns how many eligible nodes the controller itself may leave without
 * an available pod during a rolling update. With surge, upstream deletes an
 * available old pod only once the node's new pod is available, so the
 * answer is 0 whatever maxUnavailable says (upstream takes the surge path
 * as soon as maxSurge > 0). Without surge it is maxUnavailable rounded up,
 * and 1 when both are 0, as upstream "obeys the default of unavailable=1".
 */
export const unavailabilityBudget = (
  ds: DaemonSet,
  desired: number
): number => {
  if (surgeCount(ds, desired) > 0) return 0;
  // The API server defaults maxUnavailable to 1; absent means that default.
  // An OnDelete rollout reads it from its annotation (default 1 too).
  const maxUnavailable =
    onDeleteControls(ds)?.maxUnavailable ??
    ds.spec.updateStrategy?.rollingUpdate?.maxUnavailable ??
    1;
  const scaled = scaledValue(maxUnavailable, desired, true) ?? 0;
  return desired > 0 && scaled === 0 ? 1 : scaled;
};

/** Describes the strategy for violation details, e.g. "maxUnavailable 1". */
export const describeStrategy = (ds: DaemonSet): string => {
  const controls = onDeleteControls(ds);
  if (controls) {
    return `OnDelete rollout maxUnavailable ${controls.maxUnavailable} partition ${controls.partition}${controls.paused ? ' paused' : ''}`;
  }
  if (!isRollingUpdate(ds)) return ds.spec.updateStrategy?.type ?? 'OnDelete';
  const r = ds.spec.updateStrategy?.rollingUpdate;
  return `RollingUpdate maxUnavailable ${r?.maxUnavailable ?? 1} maxSurge ${r?.maxSurge ?? 0}`;
};
