/**
 * What a fleet rollout keeps between its syncs, what it reads of each
 * member cluster, and what it decides for each: the shapes the planner
 * (plan-fleet-rollout.ts) takes and returns, stored on the AWS side.
 */
import type { IntOrString } from '../reconcile/k8s/types.js';
import type { FleetPolicy } from './fleet-policy.js';
import type { FleetMember } from './wave-membership.js';

/** One member cluster's DaemonSet as its own syncs last saw it. */
export interface MemberObservation {
  /** When a member sync wrote this (the cluster's Unknown clock). */
  observedAtMs: number;
  /** The cluster answered (false: its breaker is open or its reads fail). */
  reachable: boolean;
  /** The revision hash of the DaemonSet's current template. */
  revision: string;
  /** Nodes that should run a pod. */
  desired: number;
  /** Nodes with an available pod of `revision`. */
  updatedAvailable: number;
  /**
   * Nodes whose pod of `revision` broke a health gate (restarts, a waiting
   * reason) and that were Ready and schedulable before the rollout.
   */
  failedNodes: number;
  /** Nodes already NotReady or cordoned when touched: reported, not counted. */
  excludedNodes: number;
}

/** Where one cluster is in the rollout. */
export type ClusterPhase =
  | 'Pending'
  | 'Progressing'
  | 'Baking'
  | 'Done'
  | 'Failed'
  | 'Unknown';

export interface ClusterRollout {
  phase: ClusterPhase;
  /** The node step under way (index into the wave's nodeSteps). */
  step: number;
  stepStartedAtMs?: number;
  /** When every pod of the step's target revision was first available. */
  stepAvailableAtMs?: number;
  doneAtMs?: number;
  /** Why the cluster failed, or what it waits for. */
  reason?: string;
}

/** The rollout as a whole. */
export type RolloutPhase =
  | 'Idle'
  | 'Progressing'
  | 'Paused'
  | 'Halted'
  | 'Aborted'
  | 'Done';

export interface FleetRolloutState {
  phase: RolloutPhase;
  /** The revision each cluster ran before the rollout (its hold point). */
  stable: Record<string, string>;
  /** The revision each cluster is pinned to roll to. */
  target: Record<string, string>;
  startedAtMs?: number;
  clusters: Record<string, ClusterRollout>;
  /** Waves `dsr fleet approve` let start. */
  approvedWaves: string[];
  /** Set by `dsr fleet pause`, cleared by `resume`. */
  paused: boolean;
  /** Set by `dsr fleet abort`: nothing advances again for this target. */
  aborted: boolean;
  /** When the wave before each was done (the wave's bake clock), by name. */
  waveDoneAtMs: Record<string, number>;
  haltReason?: string;
  /** Why the last rollout ended early (a newer template, an abort). */
  supersededAtMs?: number;
}

/**
 * What a member cluster's DaemonSet sync may do: pods of `stable` stay;
 * pods of `target` may replace them on all but `partition` nodes; any
 * other revision (a template the rollout has not seen) is held entirely.
 */
export interface MemberDecision {
  stable?: string;
  target?: string;
  /** Nodes kept on the stable revision (int or % of the desired count). */
  partition: IntOrString;
}

/** A new, empty rollout state. */
export const idleFleetRollout = (): FleetRolloutState => ({
  phase: 'Idle',
  stable: {},
  target: {},
  clusters: {},
  approvedWaves: [],
  paused: false,
  aborted: false,
  waveDoneAtMs: {},
});

/** What one fleet rollout sync reads. */
export interface FleetRolloutInput {
  policy: FleetPolicy;
  /** The registered clusters, with their labels. */
  members: readonly FleetMember[];
  /** Each member's last report, by cluster id. */
  observations: ReadonlyMap<string, MemberObservation>;
  state: FleetRolloutState;
  nowMs: number;
  /** A report older than this makes its cluster Unknown. */
  unknownAfterMs: number;
}

/** What it decides. */
export interface FleetRolloutPlan {
  state: FleetRolloutState;
  decisions: Record<string, MemberDecision>;
  requeueAfterMs?: number;
  /** One line per change worth an Event or a log line. */
  notes: string[];
}
