/**
 * The ports of one sync (STYLE §5): small, Kubernetes-shaped interfaces the
 * orchestrator talks through. Adapters implement them against the
 * Kubernetes API, DynamoDB or memory; tests use in-memory fakes.
 */
import type { BackoffEntry } from '../reconcile/backoff-policy.js';
import type {
  ControllerRevision,
  DaemonSet,
  Node,
  Pod,
} from '../reconcile/k8s/types.js';
import type { SlowStartProof } from '../reconcile/slow-start.js';

/** Wall time in milliseconds since the epoch (k8s `failedPodsBackoff.Clock`). */
export interface Clock {
  now(): number;
}

/**
 * Reads cluster state for one sync. Reads may be served from a cache that is
 * slightly stale (as upstream's informers are); the `*Fresh` reads go to the
 * API server (upstream's uncached quorum GETs). Missing objects are
 * `undefined`, never an error.
 */
export interface ClusterReader {
  getDaemonSet(namespace: string, name: string): Promise<DaemonSet | undefined>;
  getDaemonSetFresh(
    namespace: string,
    name: string
  ): Promise<DaemonSet | undefined>;
  /**
   * Lists nodes; a cached list holds at least every change up to
   * resourceVersion `seen` (the version the sync's wake-up saw), or is read
   * anew when `seen` is 'latest'.
   */
  listNodes(seen?: string): Promise<Node[]>;
  /**
   * Lists the pods of `namespace` that `owner` may control or adopt: at
   * least every pod matching its selector (adapters may filter by it on the
   * server; upstream lists the namespace from its cache), no older than
   * `seen` when cached.
   */
  listPods(namespace: string, owner: DaemonSet, seen?: string): Promise<Pod[]>;
  /** Reads one pod live (undefined when it does not exist). */
  getPod(namespace: string, name: string): Promise<Pod | undefined>;
  listControllerRevisions(namespace: string): Promise<ControllerRevision[]>;
  getControllerRevisionFresh(
    namespace: string,
    name: string
  ): Promise<ControllerRevision | undefined>;
}

/** A patch body exactly as upstream sends it, with its content type. */
export interface Patch {
  type: 'strategic' | 'merge';
  body: string;
}

/**
 * Creates, deletes and patches pods (upstream `PodControlInterface`). Like
 * `RealPodControl`, implementations emit `SuccessfulCreate`/`FailedCreate`
 * and `SuccessfulDelete`/`FailedDelete` events on the owner.
 */
export interface PodControl {
  /**
   * Creates the pod; resolves with the created pod's resourceVersion
   * (undefined where there is none: a dry run).
   */
  createPod(
    namespace: string,
    pod: Pod,
    owner: DaemonSet
  ): Promise<string | undefined>;
  deletePod(namespace: string, name: string, owner: DaemonSet): Promise<void>;
  patchPod(namespace: string, name: string, patch: Patch): Promise<void>;
  /** Patches the pod's status subresource (in-place update conditions). */
  patchPodStatus(namespace: string, name: string, patch: Patch): Promise<void>;
}

/** Writes ControllerRevisions (upstream calls the clientset directly). */
export interface RevisionControl {
  createRevision(
    namespace: string,
    revision: ControllerRevision
  ): Promise<ControllerRevision>;
  updateRevision(
    namespace: string,
    revision: ControllerRevision
  ): Promise<ControllerRevision>;
  patchRevision(namespace: string, name: string, patch: Patch): Promise<void>;
  deleteRevision(namespace: string, name: string): Promise<void>;
}

/** Writes a DaemonSet's status subresource (PUT with its resourceVersion). */
export interface DaemonSetStatusWriter {
  updateStatus(daemonSet: DaemonSet): Promise<DaemonSet>;
}

/** The type of a recorded Kubernetes Event (`v1.EventTypeNormal`, `Warning`). */
export type RecordedEventType = 'Normal' | 'Warning';

/** Records Kubernetes Events on a DaemonSet; never throws. */
export interface EventRecorder {
  /** Records an event; may return before it is written (see `flush`). */
  record(
    object: DaemonSet,
    type: RecordedEventType,
    reason: string,
    message: string
  ): Promise<void>;
  /**
   * Resolves once every recorded event was written or given up; once
   * `signal` aborts, at once, dropping the events not yet written.
   */
  flush?(signal?: AbortSignal): Promise<void>;
}

/**
 * Runs `work` with every Kubernetes request it makes (and every one made
 * on its behalf, e.g. its Events) aborted once `signal` aborts.
 */
export type RequestScope = <T>(
  signal: AbortSignal,
  work: () => Promise<T>
) => Promise<T>;

/** A pod event that observed a create or a delete, with its version. */
export interface ObservedPodEvent {
  observed: 'creation' | 'deletion';
  /** The event's resourceVersion (etcd's revision, a decimal integer). */
  resourceVersion?: string;
}

/**
 * Create/delete expectations per DaemonSet key (upstream
 * `ControllerExpectationsInterface`). A record older than the expectations
 * timeout counts as satisfied, also when the store still holds it.
 */
export interface ExpectationsStore {
  satisfiedExpectations(key: string): Promise<boolean>;
  /** Replaces the record (fresh timestamp), even with 0/0. */
  setExpectations(key: string, add: number, del: number): Promise<void>;
  lowerExpectations(key: string, add: number, del: number): Promise<void>;
  /**
   * Lowers by what these pod events observed, each event once however
   * often it is delivered (a resumed bridge replays events whose lowerings
   * landed); events without a numeric version lower like
   * `lowerExpectations`.
   */
  lowerObserved(
    key: string,
    events: readonly ObservedPodEvent[]
  ): Promise<void>;
  creationObserved(key: string): Promise<void>;
  deletionObserved(key: string): Promise<void>;
  deleteExpectations(key: string): Promise<void>;
}

/** Failed-pod backoff entries keyed like upstream (`dsUID/generation/node`). */
export interface FailedPodBackoffStore {
  get(id: string): Promise<BackoffEntry | undefined>;
  put(id: string, entry: BackoffEntry): Promise<void>;
}

/**
 * Each key's proven slow-start batch, kept per container: a proof lost (a
 * cold container, another container) only means upstream's slow start.
 */
export interface SlowStartMemory {
  recall(key: string): SlowStartProof | undefined;
  /** Keeps the key's proof; undefined forgets it (start at 1 next time). */
  remember(key: string, proof: SlowStartProof | undefined): void;
}

/** Structured logger (Powertools-compatible subset). */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}
