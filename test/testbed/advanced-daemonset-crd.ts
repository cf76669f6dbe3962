/**
 * The own kind's CRD on the test bed: installed as the local run installs
 * it (lib/local-cluster/advanced-daemon-set-crd.ts), and its REST paths.
 */
export {
  ADVANCED_DAEMON_SET_CRD,
  ensureAdvancedDaemonSetCrd,
} from '#lib/local-cluster/advanced-daemon-set-crd.js';

/** Returns the collection path of AdvancedDaemonSets in `ns`. */
export const advancedDaemonSetsPath = (ns: string): string =>
  `/apis/apps.dsr.dev/v1beta1/namespaces/${ns}/advanceddaemonsets`;
