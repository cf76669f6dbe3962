/**
 * When seen foreign writes mean a fight: the same DaemonSet shows writes by
 * another controller in FIGHT_THRESHOLD syncs within FIGHT_WINDOW_MS. One
 * observation could be a leftover of a takeover; two within minutes mean
 * another controller acts on it, and acting on would churn pods. The
 * DaemonSet is fenced first (for an hour, then looked at again); once
 * FIGHT_THRESHOLD DaemonSets of a cluster were fenced within the window,
 * another DaemonSet controller runs there, and the cluster is fenced until
 * an operator clears it.
 */
import { isThisProduct } from './identity.js';

/** Observations within the window that fence the cluster. */
export const FIGHT_THRESHOLD = 2;
/** How long observations count together. */
export const FIGHT_WINDOW_MS = 10 * 60_000;
/** How long a DaemonSet's own fence lasts (then it is looked at again). */
export const DAEMON_SET_FENCE_MS = 60 * 60_000;
/** The Event reason raised on the DaemonSet when it or its cluster is fenced. */
export const CONTROLLER_CONFLICT_REASON = 'ControllerConflict';
/**
 * The Event reason raised on the DaemonSet when someone other than a
 * DaemonSet controller created a pod it controls (no fence: a pod).
 */
export const FOREIGN_POD_REASON = 'ForeignControlledPod';

/**
 * Returns the first DaemonSet whose status another manager writes (a
 * DaemonSet controller other than this product, whatever its deployment:
 * `clusters` cannot tell which deployment it speaks for), or undefined.
 */
export const findRivalDaemonSetController = (
  daemonSets: readonly { daemonSet: string; managers: readonly string[] }[]
): { daemonSet: string; manager: string } | undefined => {
  for (const { daemonSet, managers } of daemonSets) {
    const manager = managers.find((m) => !isThisProduct(m));
    if (manager !== undefined) return { daemonSet, manager };
  }
  return undefined;
};
