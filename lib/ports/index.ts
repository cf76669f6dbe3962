/**
 * The small, Kubernetes-shaped interfaces the sync core talks through. Adapters
 * (lib/adapters/…) implement them against the Kubernetes API, DynamoDB, SQS or
 * memory; tests use in-memory fakes. Nothing here imports a runtime library.
 */
import type { BackoffEntry } from '../reconcile/backoff-policy.js';
import type { NodeFacts } from '../reconcile/event-keys/resumed.js';
import type {
  ControllerRevision,
  DaemonSet,
  Node,
  Pod,
} from '../reconcile/k8s/types.js';

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
  listNodes(): Promise<Node[]>;
  /**
   * Lists the pods of `namespace` that `owner` may control or adopt: at
   * least every pod matching its selector (adapters may filter by it on the
   * server; upstream lists the namespace from its cache).
   */
  listPods(namespace: string, owner: DaemonSet): Promise<Pod[]>;
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
  createPod(namespace: string, pod: Pod, owner: DaemonSet): Promise<void>;
  deletePod(namespace: string, name: string, owner: DaemonSet): Promise<void>;
  patchPod(namespace: string, name: string, patch: Patch): Promise<void>;
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

export type EventType = 'Normal' | 'Warning';

/** Records Kubernetes Events on a DaemonSet; never throws. */
export interface EventRecorder {
  record(
    object: DaemonSet,
    type: EventType,
    reason: string,
    message: string
  ): Promise<void>;
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
  creationObserved(key: string): Promise<void>;
  deletionObserved(key: string): Promise<void>;
  deleteExpectations(key: string): Promise<void>;
}

/** Failed-pod backoff entries keyed like upstream (`dsUID/generation/node`). */
export interface FailedPodBackoffStore {
  get(id: string): Promise<BackoffEntry | undefined>;
  put(id: string, entry: BackoffEntry): Promise<void>;
}

/** Structured logger (Powertools-compatible subset). */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * The producer half of the work queue (client-go `Add` / `AddAfter`). Adds of
 * a key that is already waiting coalesce; an add while the key is being
 * synced causes one more sync after it.
 */
export interface WorkQueue {
  /** Asks for a sync of `key` as soon as possible. */
  add(key: string): Promise<void>;
  /** Asks for a sync of `key` after `delayMs`; the earliest pending time wins. */
  addAfter(key: string, delayMs: number): Promise<void>;
}

/**
 * The consumer's per-key bookkeeping (client-go's `dirty` set and the
 * rate limiter's failure count), kept where every reconciler can see it.
 */
export interface WorkQueueLedger {
  /**
   * Called before a sync reads any state: clears the key's dirty mark, so an
   * add from now on wakes the key again. Returns the failures counted since
   * the last `forget`.
   */
  beginSync(key: string): Promise<number>;
  /** Counts one failed sync; returns the count including it. */
  recordFailure(key: string): Promise<number>;
  /** Forgets the key's failures (client-go `Forget`). */
  forget(key: string): Promise<void>;
}

/**
 * What a queue adapter stores to coalesce adds and keep one timer per key
 * (client-go's dirty set and the delaying queue's `waitingForQueue`).
 */
export interface WorkQueueMarks {
  /** Marks the key dirty; false when it already was (the add coalesces). */
  markDirty(key: string): Promise<boolean>;
  /** Undoes `markDirty` after the message could not be sent. */
  clearDirty(key: string): Promise<void>;
  /**
   * Arms the key's timer for `dueAtMs` unless an earlier timer is pending;
   * returns the new timer's token, or undefined when the pending one fires
   * first.
   */
  armTimer(key: string, dueAtMs: number): Promise<string | undefined>;
  /** Returns whether `token` is still the key's armed timer. */
  isTimerArmed(key: string, token: string): Promise<boolean>;
  /** Disarms the timer if `token` is still the armed one. */
  disarmTimer(key: string, token: string): Promise<void>;
}

/** Where a bridge resumes: the last processed resourceVersion per resource. */
export type ResourceVersions = Readonly<Record<string, string>>;

/**
 * One bridge per cluster (upstream: leader election), and its bookmarks.
 * Checkpoints are fenced by the lease: a bridge that lost its lease cannot
 * overwrite its successor's resourceVersions.
 */
export interface BridgeLeaseStore {
  /**
   * Takes or renews the cluster's lease for `holder` until now + `ttlMs`;
   * returns the stored resourceVersions, or undefined when another holder's
   * lease has not expired.
   */
  acquire(
    cluster: string,
    holder: string,
    ttlMs: number
  ): Promise<ResourceVersions | undefined>;
  /**
   * Stores resourceVersions and extends the lease; throws LeaseLostError when
   * `holder` no longer holds it.
   */
  checkpoint(
    cluster: string,
    holder: string,
    resourceVersions: ResourceVersions,
    ttlMs: number
  ): Promise<void>;
  /** Ends the lease early (clean handover), keeping the resourceVersions. */
  release(cluster: string, holder: string): Promise<void>;
}

/** How the reconciler authenticates to a cluster's API server. */
export type ClusterAuth =
  /** An EKS token minted from the function's IAM identity (optionally via a role). */
  | { type: 'eks'; clusterName: string; region: string; roleArn?: string }
  /** A service-account token or kubeconfig kept in AWS Secrets Manager. */
  | { type: 'secret'; secretArn: string }
  /** A kubeconfig file on this machine (local runs and tests only). */
  | { type: 'kubeconfig'; path: string; context?: string };

/** One registered cluster. */
export interface ClusterRecord {
  /** The first segment of every key; `[a-z0-9.-]`. */
  id: string;
  /** API server URL (https). Empty for `kubeconfig` auth (the file has it). */
  endpoint: string;
  /** PEM CA bundle, base64 (kubeconfig `certificate-authority-data`). */
  caData: string;
  auth: ClusterAuth;
  /** What the reconciler owns there; only native DaemonSets for now. */
  ownership: 'apps/v1';
  /** How its bridge runs: long-lived watches, or short scheduled runs. */
  bridgeMode: 'watch' | 'economy';
  /**
   * Requests per second (and burst) all reconcilers of the cluster share;
   * DEFAULT_API_BUDGET (50, 100) when absent.
   */
  apiBudget?: ApiBudget;
}

/** A token bucket: `qps` tokens a second, at most `burst` saved. */
export interface ApiBudget {
  qps: number;
  burst: number;
}

/** Paces a cluster's API requests across every reconciler (client QPS). */
export interface RequestBudget {
  /** Resolves when one more request to the cluster may be sent. */
  acquire(cluster: string, budget: ApiBudget): Promise<void>;
}

/** The registered clusters. */
export interface ClusterRegistry {
  get(id: string): Promise<ClusterRecord | undefined>;
  list(): Promise<ClusterRecord[]>;
}

/**
 * The bridge's index of node facts per cluster (labels and taints: all that
 * placement reads), so a bridge that resumes without a node cache still
 * knows what a node looked like before an update.
 */
export interface NodeIndexStore {
  load(cluster: string): Promise<Map<string, NodeFacts>>;
  save(cluster: string, nodes: ReadonlyMap<string, NodeFacts>): Promise<void>;
}

/** What one sync did, for metrics (CloudWatch embedded format in AWS). */
export interface SyncMeasurement {
  cluster: string;
  outcome: 'synced' | 'retrying' | 'dropped';
  durationMs: number;
  creates: number;
  deletes: number;
  /** Time from the oldest coalesced message's send to the sync's start. */
  queueLagMs: number;
}

/** Receives sync measurements. */
export interface MetricsSink {
  recordSync(m: SyncMeasurement): void;
  /** Counts messages dropped as poison (malformed key, unknown cluster). */
  recordPoison(reason: string): void;
  /** Reports a cluster whose breaker is open (failures so far). */
  recordClusterUnhealthy(cluster: string, failures: number): void;
  /** Reports a cluster fenced because another controller is active. */
  recordControllerConflict(cluster: string): void;
}

/** A cluster's health as the reconcilers see it (a circuit breaker). */
export interface ClusterHealth {
  /** Consecutive syncs that failed at the cluster level. */
  failures: number;
  /** Until then, syncs of the cluster's keys are requeued without a call. */
  openUntilMs: number;
  /** The last cluster-level error, for `check` and logs (no credentials). */
  lastError: string;
}

/** Per-cluster health shared by every reconciler. */
export interface ClusterHealthStore {
  get(cluster: string): Promise<ClusterHealth | undefined>;
  /** Counts a failure and opens the breaker for `retryAfterMs(failures)`. */
  recordFailure(
    cluster: string,
    error: string,
    retryAfterMs: (failures: number) => number
  ): Promise<ClusterHealth>;
  /** Closes the breaker after a success. */
  reset(cluster: string): Promise<void>;
}

/** Why the reconciler stopped acting on a cluster. */
export interface OwnershipFence {
  fencedAtMs: number;
  reason: string;
}

/**
 * Fight detection's memory per cluster: observations of another controller's
 * writes within a window, and the fence that stops the reconciler acting on
 * the cluster until an operator clears it.
 */
export interface OwnershipStore {
  getFence(cluster: string): Promise<OwnershipFence | undefined>;
  /**
   * Counts an observation in the current window unless `detail` equals the
   * last one counted (the same writes seen again); returns the count.
   */
  recordForeignWrites(cluster: string, detail: string): Promise<number>;
  fence(cluster: string, reason: string): Promise<void>;
  clearFence(cluster: string): Promise<void>;
}
