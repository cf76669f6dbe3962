/**
 * The port of fleet rollouts: each applied policy with its rollout state,
 * the operator's controls (`dsr fleet pause|resume|abort|approve`), and one
 * member item per covered DaemonSet that carries the fleet's decision to the
 * member's syncs and their observation back. The fleet sync and the member
 * syncs write different attributes, so neither overwrites the other.
 */
import type { FleetPolicy } from '../fleet/fleet-policy.js';
import type {
  FleetRolloutState,
  MemberDecision,
  MemberObservation,
} from '../fleet/fleet-rollout-state.js';
import type { DaemonSetKind } from '../reconcile/k8s/daemon-set-kind.js';
import type {
  ControllerRevision,
  DaemonSet,
  PodTemplateSpec,
} from '../reconcile/k8s/types.js';
import type { WriteOptions } from './plugin.js';

/**
 * What `dsr fleet` verbs set. Approvals and aborts are stamped, so they
 * apply to the rollout under way when they were given, not to a later one.
 */
export interface FleetControls {
  paused: boolean;
  /** When `dsr fleet abort` was run (absent: never). */
  abortedAtMs?: number;
  /** When each wave was approved, by wave name. */
  approvedAtMs: Record<string, number>;
}

/** One line of a rollout's history. */
export interface FleetHistoryEntry {
  atMs: number;
  note: string;
}

/** An applied policy and where its rollout stands. */
export interface FleetRolloutRecord {
  policy: FleetPolicy;
  /** The document as applied (YAML or JSON text). */
  source: string;
  appliedAtMs: number;
  state: FleetRolloutState;
  controls: FleetControls;
  /** The newest entries last, at most FLEET_HISTORY_LIMIT. */
  history: FleetHistoryEntry[];
}

/** The health gates a member sync applies to its target-revision pods. */
export interface MemberHealth {
  maxRestartsPerPod: number;
  failOnWaitingReasons: string[];
}

/** One covered DaemonSet in one cluster: `cluster/namespace/name`. */
export interface FleetMemberRecord {
  /** The member's work-queue key. */
  key: string;
  /** The policy that covers it. */
  policy: string;
  decision: MemberDecision;
  health: MemberHealth;
  /** What the member's syncs last reported (absent: not yet). */
  observation?: MemberObservation;
}

/** The entries a record keeps; older ones are dropped first. */
export const FLEET_HISTORY_LIMIT = 100;

/** Stores fleet rollout policies, their state and their members. */
export interface FleetRolloutStore {
  /**
   * Creates the record, or replaces its policy and source; a replaced
   * policy keeps its state, controls and history.
   */
  applyPolicy(
    policy: FleetPolicy,
    source: string,
    nowMs: number
  ): Promise<void>;
  get(name: string): Promise<FleetRolloutRecord | undefined>;
  list(): Promise<FleetRolloutRecord[]>;
  /** Deletes the record (its members go with `removeMembers`). */
  deletePolicy(name: string): Promise<void>;
  /**
   * Writes the state the fleet sync decided, appending `notes` to the
   * history (stamped `nowMs`); leaves policy and controls as they are.
   */
  saveState(
    name: string,
    state: FleetRolloutState,
    notes: readonly string[],
    nowMs: number
  ): Promise<void>;
  /**
   * Merges `change` into the controls and appends `note` to the history;
   * returns false when no such policy exists.
   */
  setControls(
    name: string,
    change: Partial<FleetControls>,
    note: string,
    nowMs: number
  ): Promise<boolean>;
  /** Reads the members by key; missing keys are absent from the map. */
  getMembers(keys: readonly string[]): Promise<Map<string, FleetMemberRecord>>;
  getMember(key: string): Promise<FleetMemberRecord | undefined>;
  /**
   * Writes each member's policy, decision and health, creating missing
   * members; their observations stay.
   */
  putDecisions(
    members: readonly Omit<FleetMemberRecord, 'observation'>[]
  ): Promise<void>;
  /** Writes a member's observation; a member that does not exist stays absent. */
  report(key: string, observation: MemberObservation): Promise<void>;
  removeMembers(keys: readonly string[]): Promise<void>;
}

/**
 * What a member DaemonSet's sync sees of the fleet: the hold a fleet
 * rollout puts on its key, and where it reports what it saw.
 */
export interface FleetMembership {
  /** The key's member item; undefined when no fleet rollout covers it. */
  memberOf(key: string): Promise<FleetMemberRecord | undefined>;
  /**
   * Writes the observation, and wakes the fleet rollout when it differs
   * from the last one beyond its timestamp.
   */
  report(
    member: FleetMemberRecord,
    observation: MemberObservation
  ): Promise<void>;
}

/**
 * What `dsr fleet rollback` needs of one member cluster, opened with the
 * operator's own credentials: the reconcilers' role may not write a
 * template, by design. Errors are KubeApiErrors.
 */
export interface MemberTemplates {
  /** Returns the DaemonSet of `kind`, or undefined when it does not exist. */
  find(
    kind: DaemonSetKind,
    namespace: string,
    name: string
  ): Promise<DaemonSet | undefined>;
  /** Returns the ControllerRevisions the DaemonSet controls. */
  revisions(ds: DaemonSet): Promise<ControllerRevision[]>;
  /**
   * Replaces the DaemonSet's pod template, only while the object is still
   * at `resourceVersion` (a JSON patch that tests it first).
   */
  replaceTemplateAt(
    kind: DaemonSetKind,
    namespace: string,
    name: string,
    template: PodTemplateSpec,
    resourceVersion: string,
    options?: WriteOptions
  ): Promise<DaemonSet>;
  /** Releases the connection. */
  close(): void;
}
