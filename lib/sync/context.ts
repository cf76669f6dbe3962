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
  Logger,
  PodControl,
  RevisionControl,
} from '../ports/index.js';
import type { DaemonSet } from '../reconcile/k8s/types.js';

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
}

/** One sync in progress. */
export interface SyncContext {
  /** `cluster/namespace/name`, the expectations key. */
  key: string;
  dsKey: DaemonSetKey;
  ds: DaemonSet;
  deps: SyncDeps;
}
