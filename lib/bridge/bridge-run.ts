/**
 * One run of a cluster's bridge once it holds the lease: resume the
 * DaemonSet, pod, node and ControllerRevision watches from the stored
 * resourceVersions (resume-point.ts), hand every event to ClusterEvents,
 * and checkpoint the versions and the node index as it goes, which also
 * renews the lease. `watch` mode runs until the deadline, `economy` until
 * every watch is quiet. runClusterBridge (cluster-bridge.ts) takes the lease
 * around it.
 */
import type {
  BridgeLeaseStore,
  Clock,
  ClusterTurn,
  ClusterWatch,
  ExpectationsStore,
  Logger,
  NodeIndexStore,
  WatchedResource,
  WorkQueue,
} from '../ports/index.js';
import type { KubeObject } from '../reconcile/k8s/types.js';
import { abortableSleep } from './abortable-sleep.js';
import { ClusterEvents, RESOURCES } from './cluster-events.js';
import { unlessWrite } from './poison-events.js';
import { ResourceWatch } from './resource-watch.js';
import { checkpointVersions, resumePoint } from './resume-point.js';

/** How often progress is stored (bounds the events replayed after a crash). */
const CHECKPOINT_EVERY_MS = 10_000;
/** Economy mode stops once every watch has been silent this long. */
const QUIET_MS = 1_500;

/** What one cluster's bridge needs. */
export interface ClusterBridgeDeps {
  cluster: string;
  /** The kind of DaemonSet owned there (a controllerRef's `kind`). */
  ownerKind: string;
  watch: ClusterWatch;
  queue: WorkQueue;
  expectations: ExpectationsStore;
  leases: BridgeLeaseStore;
  nodeIndex: NodeIndexStore;
  /** This invocation's identity, unique per run. */
  holder: string;
  clock: Clock;
  logger: Logger;
}

/** How long and how one run goes. */
export interface ClusterBridgeOptions {
  mode: 'watch' | 'economy';
  /** Wall time by which the run must have checkpointed. */
  deadlineMs: number;
  /** A hand-over: the run this one succeeds (it waits for that run's end). */
  after?: ClusterTurn['after'];
  /** Every DaemonSet is queued again this often. */
  resyncEveryMs: number;
  /** Lease duration (default LEASE_TTL_MS); tests shorten it. */
  leaseTtlMs?: number;
  /** A watch's first delay after a failure (default 1 s); tests shorten it. */
  watchRetryMs?: number;
  signal?: AbortSignal;
}

/** The watches of one run, from its start to its last checkpoint. */
export class BridgeRun {
  readonly abort = new AbortController();
  readonly #d: ClusterBridgeDeps;
  readonly #o: ClusterBridgeOptions;
  /** The lease's duration, which each checkpoint extends. */
  readonly #leaseTtlMs: number;
  readonly #events: ClusterEvents;
  #lastResyncMs = 0;
  /** The node version the stored index covers (undefined: none recorded). */
  #indexAt: string | undefined;
  readonly #watches = {} as Record<WatchedResource, ResourceWatch<KubeObject>>;

  constructor(
    deps: ClusterBridgeDeps,
    opts: ClusterBridgeOptions,
    leaseTtlMs: number
  ) {
    this.#d = deps;
    this.#o = opts;
    this.#leaseTtlMs = leaseTtlMs;
    this.#events = new ClusterEvents(deps);
    opts.signal?.addEventListener('abort', () => this.abort.abort(), {
      once: true,
    });
  }

  events(): number {
    return Object.values(this.#watches).reduce((n, w) => n + w.events, 0);
  }

  /** `{ skippedEvents }` if the watches skipped any event, else nothing. */
  skipped(): { skippedEvents?: number } {
    const n = Object.values(this.#watches).reduce((n, w) => n + w.skipped, 0);
    return n > 0 ? { skippedEvents: n } : {};
  }

  async start(stored: Readonly<Record<string, string>>): Promise<void> {
    const events = this.#events;
    const { versions, firstRun, indexBehind, indexAt } = await resumePoint(
      events,
      this.#d.nodeIndex,
      this.#d.cluster,
      stored
    );
    this.#indexAt = indexAt;
    const now = this.#d.clock.now();
    this.#lastResyncMs = firstRun ? now : Number(stored.resyncAtMs ?? 0);
    if (
      firstRun ||
      indexBehind ||
      now - this.#lastResyncMs >= this.#o.resyncEveryMs
    ) {
      this.#lastResyncMs = now;
      await events.enqueueAll();
    }
    for (const r of RESOURCES) {
      this.#watches[r] = new ResourceWatch<KubeObject>(
        {
          resource: r,
          watch: (resourceVersion, timeoutSeconds, signal) =>
            this.#d.watch.watch<KubeObject>(
              r,
              resourceVersion,
              timeoutSeconds,
              signal
            ),
          onEvent: (type, obj) =>
            events
              .onEvent(r, type, obj)
              .catch(unlessWrite(`handle a ${type} event of ${r}`)),
          onGone: () => events.onGone(r),
          // Pod events come in bursts (a DaemonSet's creates); their writes
          // go out in batches.
          ...(r === 'pods' ? { flush: () => events.flushPods() } : {}),
          clock: this.#d.clock,
          logger: this.#d.logger,
          ...(this.#o.watchRetryMs
            ? { retryInitialMs: this.#o.watchRetryMs }
            : {}),
        },
        versions[r]
      );
    }
  }

  /** Watches until the deadline (or quiet), checkpointing as it goes. */
  async watchAll(): Promise<void> {
    const signal = this.abort.signal;
    const streams = Object.values(this.#watches).map((w) =>
      w.run(signal, this.#o.deadlineMs)
    );
    const all = Promise.all(streams).then(() => this.abort.abort());
    let lastCheckpointMs = this.#d.clock.now();
    try {
      while (!signal.aborted) {
        await abortableSleep(250, signal);
        const now = this.#d.clock.now();
        if (now >= this.#o.deadlineMs) break;
        if (this.#o.mode === 'economy' && this.#quietSince(now)) break;
        // Renew well before the lease runs out.
        const every = Math.min(CHECKPOINT_EVERY_MS, this.#leaseTtlMs / 3);
        if (now - lastCheckpointMs >= every) {
          await this.#resyncIfDue(now);
          await this.checkpointAndResync();
          lastCheckpointMs = now;
        }
      }
    } finally {
      this.abort.abort();
      await all;
    }
  }

  #quietSince(now: number): boolean {
    return Object.values(this.#watches).every(
      (w) => now - w.lastActivityMs >= QUIET_MS
    );
  }

  async #resyncIfDue(now: number): Promise<void> {
    if (now - this.#lastResyncMs < this.#o.resyncEveryMs) return;
    this.#lastResyncMs = now;
    await this.#events.enqueueAll();
  }

  /**
   * Checkpoints, then queues every DaemonSet if a resync was asked for
   * meanwhile (an unfence: events seen while fenced were dropped), and only
   * then completes the request: a failure keeps it for the next checkpoint.
   */
  async checkpointAndResync(): Promise<void> {
    const { resyncRequestedAtMs } = await this.#checkpoint();
    if (resyncRequestedAtMs === undefined) return;
    this.#d.logger.info('resync requested; queueing every DaemonSet', {
      cluster: this.#d.cluster,
    });
    await this.#events.enqueueAll(true);
    await this.#d.leases.completeResync(this.#d.cluster, resyncRequestedAtMs);
  }

  /**
   * Stores the resourceVersions, then the node index (if changed) — both as
   * they stood at the same instant: events handled while they are being
   * saved are in neither, so they wait for the next checkpoint. Versions
   * first: an index stored ahead of its versions (the checkpoint failing in
   * between) would make a successor replay node events against facts that
   * already hold them, and a label change would wake nothing. One behind
   * them (the save failing) is seen by the successor (resume-point.ts).
   */
  async #checkpoint(): Promise<{ resyncRequestedAtMs?: number }> {
    const changed = this.#events.nodeIndex.takeChanged();
    const index = changed === undefined ? undefined : new Map(changed);
    const versions = checkpointVersions(
      this.#watches,
      this.#lastResyncMs,
      index !== undefined,
      this.#indexAt
    );
    const nodesAt = versions.nodes ?? '';
    const stored = await this.#d.leases.checkpoint(
      this.#d.cluster,
      this.#d.holder,
      versions,
      this.#leaseTtlMs,
      { nodes: this.#events.nodeIndex.size }
    );
    if (index !== undefined) {
      await this.#d.nodeIndex.save(
        this.#d.cluster,
        index,
        this.#d.holder,
        nodesAt
      );
      this.#indexAt = nodesAt;
    }
    return stored;
  }
}
