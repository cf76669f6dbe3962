/**
 * Cluster id → the Kubernetes ports of that cluster, opened once per
 * container and reused by every sync (clients at module scope, as Lambda
 * wants). Unknown clusters are undefined, for the caller to drop.
 */
import type {
  Clock,
  ClusterConnection,
  ClusterRecord,
  ClusterRegistry,
  ConnectCluster,
  ExpectationsStore,
  FailedPodBackoffStore,
  SlowStartMemory,
} from '../ports/index.js';
import type { SyncDeps } from '../sync/context.js';

/** One open cluster. */
export interface ClusterSession {
  record: ClusterRecord;
  connection: ClusterConnection;
  /** The cluster's ports; a sync adds its own logger. */
  deps: Omit<SyncDeps, 'logger'>;
}

/** Returns the sync ports of an open cluster, with the shared state stores. */
export const syncPortsOf = (
  connection: ClusterConnection,
  state: {
    expectations: ExpectationsStore;
    failedPodBackoff: FailedPodBackoffStore;
    clock: Clock;
    newSlowStartMemory?: () => SlowStartMemory;
  }
): Omit<SyncDeps, 'logger'> => ({
  reader: connection.reader,
  podControl: connection.podControl,
  revisionControl: connection.revisionControl,
  statusWriter: connection.statusWriter,
  events: connection.events,
  expectations: state.expectations,
  failedPodBackoff: state.failedPodBackoff,
  clock: state.clock,
  ...(state.newSlowStartMemory && { slowStart: state.newSlowStartMemory() }),
});

/** What ClusterSessions needs. */
export interface ClusterSessionsOptions {
  registry: ClusterRegistry;
  connect: ConnectCluster;
  expectations: ExpectationsStore;
  failedPodBackoff: FailedPodBackoffStore;
  clock: Clock;
  /** Each session's memory of proven slow-start batches (none: upstream's). */
  newSlowStartMemory?: () => SlowStartMemory;
  /** Drops a cached credential of the record (e.g. a Secrets Manager read). */
  forgetCredential?: (record: ClusterRecord) => void;
}

/**
 * How long a warm container keeps a session: a record changed or removed
 * in the registry (rotated CA, new endpoint) is picked up within this time.
 */
export const SESSION_MAX_AGE_MS = 5 * 60_000;
/** A replaced session's connections close after this (longer than a sync). */
const CLOSE_GRACE_MS = 60_000;

/** Sessions by cluster id, opened on first use. */
export class ClusterSessions {
  readonly #open = new Map<string, Promise<ClusterSession | undefined>>();
  readonly #openedAt = new Map<string, number>();
  readonly #o: ClusterSessionsOptions;

  constructor(options: ClusterSessionsOptions) {
    this.#o = options;
  }

  /** Returns the cluster's session, or undefined when it is not registered. */
  async get(clusterId: string): Promise<ClusterSession | undefined> {
    const now = this.#o.clock.now();
    const openedAt = this.#openedAt.get(clusterId) ?? 0;
    if (now - openedAt > SESSION_MAX_AGE_MS) {
      if (await this.#unchanged(clusterId)) this.#openedAt.set(clusterId, now);
      else await this.invalidate(clusterId, false);
    }
    let session = this.#open.get(clusterId);
    if (session === undefined) {
      this.#openedAt.set(clusterId, this.#o.clock.now());
      session = this.#openSession(clusterId);
      this.#open.set(clusterId, session);
      // A failed open is retried by the next caller, not cached.
      session.catch(() => this.#open.delete(clusterId));
    }
    return session;
  }

  /**
   * Returns whether the cluster's open session still matches its record:
   * then it is kept, with the nodes and pods its reader keeps current.
   */
  async #unchanged(clusterId: string): Promise<boolean> {
    const open = await this.#open.get(clusterId)?.catch(() => undefined);
    if (open === undefined) return false;
    const record = await this.#o.registry.get(clusterId);
    return (
      record !== undefined &&
      JSON.stringify(record) === JSON.stringify(open.record)
    );
  }

  async #openSession(clusterId: string): Promise<ClusterSession | undefined> {
    const record = await this.#o.registry.get(clusterId);
    if (record === undefined) {
      this.#open.delete(clusterId);
      return undefined;
    }
    const connection = await this.#o.connect(record);
    return { record, connection, deps: syncPortsOf(connection, this.#o) };
  }

  /**
   * Forgets the cluster's session (after its credentials were rejected), so
   * the next sync reconnects and re-reads the credential.
   */
  async invalidate(
    clusterId: string,
    credentialRejected = true
  ): Promise<void> {
    const session = this.#open.get(clusterId);
    this.#open.delete(clusterId);
    this.#openedAt.delete(clusterId);
    const open = await session?.catch(() => undefined);
    if (open !== undefined) {
      if (credentialRejected) this.#o.forgetCredential?.(open.record);
      // Other syncs of this batch may still be using it.
      setTimeout(() => open.connection.close(), CLOSE_GRACE_MS).unref();
    }
  }

  /** Closes every open connection. */
  async close(): Promise<void> {
    for (const session of this.#open.values()) {
      (await session.catch(() => undefined))?.connection.close();
    }
    this.#open.clear();
  }
}
