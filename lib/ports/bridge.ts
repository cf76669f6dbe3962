/**
 * The ports of the watch-bridge: the cluster's list/watch API
 * (ClusterWatch), its lease and bookmarks, and the node index.
 */
import type { NodeFacts } from '../reconcile/event-keys/resumed.js';
import type { KubeObject } from '../reconcile/k8s/types.js';

/** Where a bridge resumes: the last processed resourceVersion per resource. */
export type ResourceVersions = Readonly<Record<string, string>>;

/**
 * One bridge per cluster (upstream: leader election), and its bookmarks.
 * Checkpoints are fenced by the lease: a bridge that lost its lease cannot
 * overwrite its successor's resourceVersions.
 */
export interface BridgeLeaseStore {
  /**
   * Takes or renews the cluster's lease for `holder` until now + `ttlMs`,
   * noting when the run means to stop (`runUntilMs`, what the dispatcher
   * times the successor by) and ending any take-over claim; returns the
   * stored resourceVersions, or undefined when another holder's lease has
   * not expired.
   */
  acquire(
    cluster: string,
    holder: string,
    ttlMs: number,
    runUntilMs?: number
  ): Promise<ResourceVersions | undefined>;
  /**
   * Stores resourceVersions (and the cluster's size) and extends the lease;
   * throws BridgeLeaseLostError when `holder` no longer holds it. Returns when the
   * pending resync request was made, if one is, without taking it: the
   * caller queues every key, then `completeResync`s it, so a failure or a
   * crash in between leaves it for the next checkpoint.
   */
  checkpoint(
    cluster: string,
    holder: string,
    resourceVersions: ResourceVersions,
    ttlMs: number,
    size?: ClusterSize
  ): Promise<{ resyncRequestedAtMs?: number }>;
  /**
   * Removes the resync request made at `requestedAtMs` (every key was
   * queued since); a newer request stays for the next checkpoint.
   */
  completeResync(cluster: string, requestedAtMs: number): Promise<void>;
  /**
   * Notes that `holder`'s run of the cluster failed (unreachable,
   * credentials, RBAC): the dispatcher backs the cluster's bridge off,
   * doubling; the next checkpoint clears it. Does nothing while another
   * holder's lease is live.
   */
  recordFailure(cluster: string, holder: string): Promise<void>;
  /** Returns the leases of `clusters` as they stand (absent: never leased). */
  peek(clusters: readonly string[]): Promise<Map<string, LeaseView>>;
  /**
   * Claims the launch of the run that takes the cluster over: from `holder`
   * (a hand-over), or from nobody (`undefined`: the lease is free or ran
   * out). True when this `claimId` holds the claim (again: a retried call
   * with the same id is granted); false when the lease changed hands or
   * another claim younger than `staleMs` stands. The taker's `acquire` ends
   * the claim.
   */
  claimTakeOver(
    cluster: string,
    holder: string | undefined,
    claimId: string,
    staleMs: number
  ): Promise<boolean>;
  /**
   * Asks the cluster's bridge to queue every DaemonSet again (after an
   * unfence), noting the request's time: the bridge that holds the lease,
   * or the next one to take it, does at its next checkpoint (every run ends
   * with one). On an expired lease, the request starts a fresh one.
   */
  requestResync(cluster: string): Promise<void>;
  /**
   * Forgets the cluster's lease and bookmarks (the cluster was removed): a
   * cluster registered again under the id starts with a fresh list, never
   * from versions of the cluster that was there before.
   */
  forget(cluster: string): Promise<void>;
  /** Ends the lease early (clean handover), keeping the resourceVersions. */
  release(cluster: string, holder: string): Promise<void>;
}

/** A cluster's size as its bridge last saw it (sizes bridge turns). */
export interface ClusterSize {
  nodes: number;
}

/** What the dispatcher reads of a cluster's lease. */
export interface LeaseView {
  /** The last holder (its lease may have ended). */
  holder?: string;
  /** Until when `holder` holds it; 0 once released. */
  leaseUntilMs: number;
  /** When the holder's run means to stop. */
  runUntilMs?: number;
  /** When the run taking it over was claimed (launched). */
  claimedAtMs?: number;
  /** The cluster's size at the last checkpoint. */
  size?: ClusterSize;
  /** When the last checkpoint was written (absent: none yet). */
  checkpointedAtMs?: number;
  /** Runs failed in a row since the last checkpoint, and the last one's time. */
  failures?: { count: number; lastAtMs: number };
}

/** Starts bridge runs (the AWS adapter invokes the bridge function). */
export interface BridgeLauncher {
  /** Starts `turn` without waiting for it to run. */
  launch(turn: BridgeTurn): Promise<void>;
}

/** One cluster's part of a bridge turn. */
export interface ClusterTurn {
  cluster: string;
  /** Wall time by which the run must have checkpointed and released. */
  stopAtMs: number;
  /** A hand-over: the run this one succeeds, whose end it waits for. */
  after?: { holder: string; runUntilMs: number };
}

/** What one bridge invocation runs: the dispatcher's payload. */
export interface BridgeTurn {
  mode: 'watch' | 'economy';
  clusters: ClusterTurn[];
}

/** A cluster's stored node index and the node version it is current to. */
export interface StoredNodeIndex {
  nodes: Map<string, NodeFacts>;
  /** The node resourceVersion the index covers (undefined: not recorded). */
  resourceVersion?: string;
}

/**
 * The bridge's index of node facts per cluster (labels and taints: all that
 * placement reads), so a bridge that resumes without a node cache still
 * knows what a node looked like before an update.
 */
export interface NodeIndexStore {
  load(cluster: string): Promise<StoredNodeIndex>;
  /**
   * Stores the index as `holder`'s, current to node `resourceVersion`;
   * throws BridgeLeaseLostError (storing nothing) when `holder` no longer holds
   * the cluster's bridge lease, so a deposed bridge cannot overwrite its
   * successor's index.
   */
  save(
    cluster: string,
    nodes: ReadonlyMap<string, NodeFacts>,
    holder: string,
    resourceVersion: string
  ): Promise<void>;
  /** Deletes the cluster's index (the cluster is removed). */
  forget(cluster: string): Promise<void>;
}

/** The cluster-wide collections the bridge lists and watches. */
export type WatchedResource = 'daemonSets' | 'pods' | 'nodes' | 'revisions';

/** One event of a watch stream (BOOKMARKs carry only a resourceVersion). */
export interface WatchEvent<T = KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

/** A complete list and the resourceVersion to watch from after it. */
export interface ListSnapshot<T extends KubeObject> {
  items: T[];
  resourceVersion: string;
}

/**
 * A cluster's list and watch API for the bridge (the part of client-go's
 * ListerWatcher it uses). Errors are KubeApiErrors; a watch from a
 * compacted resourceVersion fails with reason Gone.
 */
export interface ClusterWatch {
  /** Lists every object of the collection (paginated by the adapter). */
  list<T extends KubeObject>(
    resource: WatchedResource
  ): Promise<ListSnapshot<T>>;
  /** Returns the collection's current resourceVersion without its items. */
  currentVersion(resource: WatchedResource): Promise<string>;
  /** Streams changes after `resourceVersion`, bookmarks included. */
  watch<T extends KubeObject>(
    resource: WatchedResource,
    resourceVersion: string,
    timeoutSeconds: number,
    signal: AbortSignal
  ): AsyncIterable<WatchEvent<T>>;
}
