/**
 * The ports of the fleet: registered clusters and how to reach them, their
 * shared API budget, health and ownership fences, and metrics.
 */
import type { RolloutPhase } from '../fleet/fleet-rollout-state.js';
import type { ClusterWatch } from './bridge.js';
import type {
  ClusterReader,
  DaemonSetStatusWriter,
  EventRecorder,
  PodControl,
  RevisionControl,
} from './sync.js';

/**
 * What the reconciler owns in a cluster, named by the apiVersion it
 * reconciles: native DaemonSets (`apps/v1`, for clusters whose DaemonSet
 * controller is off); the own kind (`apps.dsr.dev/v1beta1`,
 * AdvancedDaemonSet; managed clusters), never touching apps/v1; or the
 * rollouts of opted-in native OnDelete DaemonSets beside the cluster's own
 * controller (`apps/v1+OnDelete`; managed clusters), deleting old pods only.
 */
export type Ownership = 'apps/v1' | 'apps.dsr.dev/v1beta1' | 'apps/v1+OnDelete';

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
  /** What the reconciler owns there (Ownership). */
  ownership: Ownership;
  /** How its bridge runs: long-lived watches, or short scheduled runs. */
  bridgeMode: 'watch' | 'economy';
  /** Registration labels (Kubernetes label syntax): fleet policies select by them. */
  labels?: Readonly<Record<string, string>>;
  /**
   * The most requests per second (and burst) all reconcilers of the
   * cluster share; the rate adapts below it to what the API server
   * admits. DEFAULT_API_CEILING (400, 800) when absent.
   */
  apiBudget?: ApiBudget;
}

/** A token bucket's limits: `qps` tokens a second, at most `burst` saved. */
export interface ApiBudget {
  qps: number;
  burst: number;
}

/** What one answer of a cluster's API server says about its load. */
export interface ApiSignal {
  /** From sending the request to the answer's headers. */
  latencyMs: number;
  /** The server refused for load (429) or failed a read (5xx). */
  congestion?: 'throttled' | 'serverError';
  /** How long the server asked for no request (Retry-After). */
  retryAfterMs?: number;
}

/** What a container's requests to one cluster met, for metrics. */
export interface BudgetUsage {
  /** Answers that were 429s. */
  throttled: number;
  /** Time requests spent waiting for a token. */
  waitMs: number;
}

/**
 * Paces a cluster's API requests across every reconciler (client QPS) at a
 * rate that adapts to the server's answers, under a ceiling.
 */
export interface RequestBudget {
  /** Resolves when one more request to the cluster may be sent. */
  acquire(cluster: string, ceiling: ApiBudget): Promise<void>;
  /**
   * Takes one answer into the cluster's shared rate; resolves once it is
   * stored or kept for the next claim (never rejects).
   */
  report(cluster: string, ceiling: ApiBudget, signal: ApiSignal): Promise<void>;
  /** Returns, and starts anew, this container's usage of the cluster. */
  takeUsage(cluster: string): BudgetUsage;
}

/** The registered clusters. */
/** A registry item that is not a valid record, and why. */
export interface InvalidClusterRecord {
  /** The item's key (`cluster#<id>`). */
  key: string;
  error: string;
}

/** Every registered cluster: the valid records, and the items that are not. */
export interface ClusterListing {
  /** Sorted by id. */
  records: ClusterRecord[];
  invalid: InvalidClusterRecord[];
}

export interface ClusterRegistry {
  get(id: string): Promise<ClusterRecord | undefined>;
  /**
   * Lists every cluster; an invalid item is reported beside the valid
   * records, never fatal to them.
   */
  list(): Promise<ClusterListing>;
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
  /**
   * The container's 429s and budget waits for the cluster since its last
   * sync reported them: exact summed over syncs, not per sync.
   */
  budgetUsage: BudgetUsage;
}

/** The age of a cluster's last bridge checkpoint at a dispatcher tick. */
export interface CheckpointAge {
  cluster: string;
  ageMs: number;
}

/** Receives sync measurements. */
export interface MetricsSink {
  recordSync(m: SyncMeasurement): void;
  /**
   * Reports, once a dispatcher tick, the age of each registered cluster's
   * last bridge checkpoint (clusters never checkpointed are absent).
   */
  recordCheckpointAges(ages: readonly CheckpointAge[]): void;
  /** Counts messages dropped as poison (malformed key, unknown cluster). */
  recordPoison(reason: string): void;
  /**
   * Counts a message whose cluster's registry record breaks the rules
   * (acknowledged and requeued until the record is fixed).
   */
  recordInvalidClusterRecord(cluster: string): void;
  /** Reports a cluster whose breaker is open (failures so far). */
  recordClusterUnhealthy(cluster: string, failures: number): void;
  /** Reports a cluster fenced because another controller is active. */
  recordControllerConflict(cluster: string): void;
  /** Counts one fleet rollout sync by the phase it left the rollout in. */
  recordFleetRollout(policy: string, phase: RolloutPhase): void;
}

/** The attributes of one permission (SelfSubjectAccessReview). */
export interface ResourceAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
}

/**
 * The questions `clusters check` asks a cluster: its version, who it
 * thinks we are, and whether we may do something. Errors are KubeApiErrors.
 */
export interface ClusterProbe {
  /** Returns GET /version's `gitVersion`. */
  version(): Promise<string | undefined>;
  /** Returns the user name the server sees (SelfSubjectReview). */
  whoAmI(): Promise<string | undefined>;
  /** Returns whether the server allows one request (SelfSubjectAccessReview). */
  canI(attributes: ResourceAttributes): Promise<boolean>;
  /**
   * Returns, per apps/v1 DaemonSet of kube-system (`namespace/name`), the
   * field managers that wrote its status: who runs DaemonSets there.
   */
  daemonSetStatusManagers(): Promise<
    { daemonSet: string; managers: string[] }[]
  >;
}

/**
 * One open cluster: every Kubernetes-facing port, bound to one connection
 * and its credentials. `close` ends the connection's sockets.
 */
export interface ClusterConnection {
  watch: ClusterWatch;
  probe: ClusterProbe;
  reader: ClusterReader;
  podControl: PodControl;
  revisionControl: RevisionControl;
  statusWriter: DaemonSetStatusWriter;
  events: EventRecorder;
  /** Returns what the connection has sent and read so far. */
  stats(): Readonly<ConnectionStats>;
  close(): void;
}

/** A connection's counters (response bodies as received). */
export interface ConnectionStats {
  requests: number;
  bytesRead: number;
  bytesWritten: number;
}

/** Opens a registered cluster (the ClusterConnector in AWS). */
export type ConnectCluster = (
  record: ClusterRecord
) => Promise<ClusterConnection>;
