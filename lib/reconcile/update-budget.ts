/**
 * The budgets of one rolling update pass: what upstream
 * `updatedDesiredNodeCounts` (pkg/controller/daemon/update.go) returns,
 * which Kruise's partition filter narrows and the planner spends.
 */
import type { Pod } from './k8s/types.js';

/** The budgets of one rolling update pass. */
export interface UpdateBudget {
  maxSurge: number;
  maxUnavailable: number;
  desiredNumberScheduled: number;
  /** `nodeToDaemonPods` plus an empty entry for each node that should run. */
  nodeToDaemonPods: Map<string, readonly Pod[]>;
}
