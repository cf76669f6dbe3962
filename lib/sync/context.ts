/**
 * What one sync of one DaemonSet carries: its key, the object as read at the
 * start, and the ports of its cluster.
 */
import type { DaemonSetKey } from '../keys.js';
import type {
  Clock,
  ClusterReader,
  DaemonSetStatusWriter,
  EventRecorder,
  ExpectationsStore,
  FailedPodBackoffStore,
  FleetMembership,
  Logger,
  PodControl,
  RevisionControl,
  SlowStartMemory,
} from '../ports/index.js';
import type {
  DaemonSet,
  Pod,
  PodTemplateSpec,
} from '../reconcile/k8s/types.js';
import type { NodePlacement } from '../reconcile/node-should-run.js';

/** The ports a sync needs, all bound to the key's cluster. */
export interface SyncDeps {
  reader: ClusterReader;
  podControl: PodControl;
  revisionControl: RevisionControl;
  statusWriter: DaemonSetStatusWriter;
  events: EventRecorder;
  expectations: ExpectationsStore;
  failedPodBackoff: FailedPodBackoffStore;
  clock: Clock;
  logger: Logger;
  /**
   * Records that the key's later syncs must read pods at least as fresh as
   * `resourceVersion` (the newest pod this sync created). Absent in dry
   * runs, which write nothing.
   */
  noteOwnPods?(resourceVersion: string): Promise<void>;
  /**
   * Makes the key's next syncs read the latest state (consistent lists)
   * until one succeeds: a create whose answer was lost may have made a pod
   * that no cache shows yet, and that no expectation now waits for.
   */
  readLatestNext?(): Promise<void>;
  /**
   * Carries the key's proven create batch to its next sync. Absent (dry
   * runs, CLI plans): every sync slow-starts at 1, as upstream's.
   */
  slowStart?: SlowStartMemory;
  /**
   * The native OnDelete mode: the cluster's own DaemonSet controller
   * creates pods and writes status; the sync only deletes old pods of
   * opted-in OnDelete DaemonSets (roll-on-delete.ts).
   */
  rollsOnDeleteOnly?: boolean;
  /**
   * Fleet rollouts: the hold a fleet rollout puts on the key, and where the
   * sync reports what it saw. Absent (dry runs, CLI plans): no hold.
   */
  fleet?: FleetMembership;
}

/** One sync in progress. */
export interface SyncContext {
  /** `cluster/namespace/name`, the expectations key. */
  key: string;
  dsKey: DaemonSetKey;
  ds: DaemonSet;
  deps: SyncDeps;
  /** What the sync read, returned with its result (SyncRead). */
  read: SyncRead;
  /**
   * Where `ds` wants pods: each node judged once for manage, rolling update
   * and status, which upstream asks about the same nodes.
   */
  placement: NodePlacement;
  /**
   * The sync's last claim pass that patched nothing, kept for the next
   * passes over the same listing (claim.ts).
   */
  claimed?: ClaimedPods;
}

/**
 * Where the pods a sync creates come from while a fleet rollout holds the
 * current revision: the first `fromCurrent` from the current template (the
 * room the step leaves), the rest from an older revision's template.
 */
export interface PodSource {
  template: PodTemplateSpec;
  hash: string;
  fromCurrent: number;
}

/** A claim pass over one pod listing, and its groupings by node. */
export interface ClaimedPods {
  /** The listing claimed (the reader's array, compared by identity). */
  from: readonly Pod[];
  pods: readonly Pod[];
  /** By `includeDeletedTerminal`. */
  byNode: Map<boolean, ReadonlyMap<string, readonly Pod[]>>;
}

/**
 * What a sync read of the cluster: the DaemonSet as it stood at the start
 * and the pods of its last pod listing (those matching its selector, owned
 * or not). Fight detection looks at who wrote them.
 */
export interface SyncRead {
  daemonSet: DaemonSet;
  pods: readonly Pod[];
  /** The current revision's hash, once the sync has constructed history. */
  hash?: string;
}
