/** What the checker reports: the invariant broken, when, and about what. */

import type { Subject } from './history.js';

/** The invariants the checker evaluates. */
export type InvariantName =
  /** > 1 live daemon pod of a DS on a node (> 2 while surge is allowed). */
  | 'one-daemon-pod-per-node'
  /** More nodes left without an available pod by the controller than allowed. */
  | 'unavailable-within-budget'
  /** A live daemon pod on a node that must not run it, beyond the grace. */
  | 'no-pod-on-ineligible-node'
  /** A pod the runner marked foreign was changed or deleted by someone else. */
  | 'foreign-pods-untouched'
  /** A live pod neither marked foreign nor controlled by a DaemonSet of the namespace (after a grace). */
  | 'only-controller-pods'
  /** An OnDelete rollout deleted an old pod its partition holds (fewer old nodes left than the partition). */
  | 'partition-respected'
  /** An OnDelete rollout deleted an available old pod while paused. */
  | 'pause-respected'
  /** In the OnDelete mode the product wrote a pod's spec (a create) or a DaemonSet. */
  | 'product-never-creates'
  /** Liveness: the DaemonSets did not converge after the faults stopped. */
  | 'converges-after-faults'
  /** The checker itself lost its watch: the run is void, not green. */
  | 'checker-watch-failed'
  /** The runner's: API requests, SQS or DynamoDB calls beyond a factor of the fault-free run of the seed. */
  | 'cost-within-factor';

/** One broken invariant. */
export interface Violation {
  invariant: InvariantName;
  atMs: number;
  /** "namespace/name" of the DaemonSet concerned. */
  daemonSet?: string;
  node?: string;
  /** The pod concerned, when one is (an addition to the runner's API). */
  pod?: string;
  detail: string;
}

/** The history subjects a violation is about. */
export const subjectsOf = (v: Violation): Subject[] => [
  ...(v.daemonSet ? [`ds:${v.daemonSet}` as const] : []),
  ...(v.node ? [`node:${v.node}` as const] : []),
  ...(v.pod ? [`pod:${v.pod}` as const] : []),
];
