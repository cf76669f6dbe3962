/**
 * The watch-bridge of one cluster, for one invocation: take the cluster's
 * lease, resume the DaemonSet, pod, node and ControllerRevision watches from
 * the stored resourceVersions, turn every event into DaemonSet keys with
 * upstream's handlers (lowering expectations on observed pod creates and
 * deletes), checkpoint, and hand over. It keeps no pod, node or revision
 * cache: only the DaemonSet list (listed each run, small) and the node index
 * (labels and taints per node). Two modes share everything: `watch` runs
 * until its deadline; `economy` stops once every watch has gone quiet.
 */
import type { KubeHttp } from '../adapters/kube/kube-http.js';
import { LeaseLostError } from '../errors.js';
import type {
  BridgeLeaseStore,
  Clock,
  ExpectationsStore,
  Logger,
  NodeIndexStore,
  WorkQueue,
} from '../ports.js';
import * as handlers from '../reconcile/event-keys.js';
import * as resumed from '../reconcile/event-keys-resumed.js';
import type {
  ControllerRevision,
  DaemonSet,
  KubeObject,
  Node,
  Pod,
} from '../reconcile/types.js';
import { applyEventKeys } from './apply-event-keys.js';
import { DaemonSetView } from './daemon-set-view.js';
import { ResourceWatch, sleep } from './resource-watch.js';

/** A dead bridge's cluster is taken over within this time. */
export const LEASE_TTL_MS = 60_000;
/** How often progress is stored (bounds the events replayed after a crash). */
const CHECKPOINT_EVERY_MS = 10_000;
/** Economy mode stops once every watch has been silent this long. */
const QUIET_MS = 1_500;

const PATHS = {
  daemonSets: '/apis/apps/v1/daemonsets',
  pods: '/api/v1/pods',
  nodes: '/api/v1/nodes',
  revisions: '/apis/apps/v1/controllerrevisions',
} as const;
type Resource = keyof typeof PATHS;
type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** What one cluster's bridge needs. */
export interface ClusterBridgeDeps {
  cluster: string;
  http: KubeHttp;
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
  /** Every DaemonSet is queued again this often. */
  resyncEveryMs: number;
  /** Lease duration (default LEASE_TTL_MS); tests shorten it. */
  leaseTtlMs?: number;
  signal?: AbortSignal;
}

/** What a run did. */
export interface ClusterBridgeReport {
  cluster: string;
  outcome: 'done' | 'lease-held' | 'lease-lost';
  events: number;
}

/** Runs the bridge of one cluster until its deadline (or quiet, in economy). */
export const runClusterBridge = async (
  deps: ClusterBridgeDeps,
  opts: ClusterBridgeOptions
): Promise<ClusterBridgeReport> => {
  const { cluster, holder, leases } = deps;
  const ttl = opts.leaseTtlMs ?? LEASE_TTL_MS;
  const stored = await leases.acquire(cluster, holder, ttl);
  if (stored === undefined)
    return { cluster, outcome: 'lease-held', events: 0 };
  const run = new BridgeRun(deps, opts);
  try {
    await run.start(stored);
    await run.watchAll();
    await run.checkpoint();
    await leases.release(cluster, holder);
    return { cluster, outcome: 'done', events: run.events() };
  } catch (e) {
    if (e instanceof LeaseLostError) {
      deps.logger.warn('lease lost; stopping', { cluster });
      return { cluster, outcome: 'lease-lost', events: run.events() };
    }
    // Let the next invocation take over at once; its checkpoint is intact.
    await leases.release(cluster, holder).catch(() => undefined);
    throw e;
  } finally {
    run.abort.abort();
  }
};

class BridgeRun {
  readonly abort = new AbortController();
  readonly #d: ClusterBridgeDeps;
  readonly #o: ClusterBridgeOptions;
  readonly #view: DaemonSetView;
  #index = new Map<string, resumed.NodeFacts>();
  #indexDirty = false;
  #lastResyncMs = 0;
  readonly #watches = {} as Record<Resource, ResourceWatch<KubeObject>>;

  constructor(deps: ClusterBridgeDeps, opts: ClusterBridgeOptions) {
    this.#d = deps;
    this.#o = opts;
    this.#view = new DaemonSetView(deps.cluster);
    opts.signal?.addEventListener('abort', () => this.abort.abort(), {
      once: true,
    });
  }

  events(): number {
    return Object.values(this.#watches).reduce((n, w) => n + w.events, 0);
  }

  async #apply(out: handlers.EventKeys): Promise<void> {
    await applyEventKeys(out, this.#d);
  }

  async #enqueueAll(): Promise<void> {
    for (const key of this.#view.keys()) await this.#d.queue.add(key);
  }

  async #currentVersion(resource: Resource): Promise<string> {
    const page = await this.#d.http.request<{
      metadata?: { resourceVersion?: string };
    }>(`list ${resource}`, 'GET', PATHS[resource], { query: { limit: 1 } });
    return page.metadata?.resourceVersion ?? '';
  }

  /** Lists DaemonSets; DaemonSets gone meanwhile are handled as deleted. */
  async #relistDaemonSets(): Promise<string> {
    const { items, resourceVersion } =
      await this.#d.http.listWithVersion<DaemonSet>(
        'list daemonsets',
        PATHS.daemonSets
      );
    for (const gone of this.#view.reset(items)) {
      await this.#apply(handlers.deleteDaemonset(this.#view.view(), gone));
    }
    return resourceVersion;
  }

  /**
   * Lists nodes and handles every difference from the index as an event
   * (`wake` false: only rebuild the index, when every key is queued anyway).
   */
  async #relistNodes(wake = true): Promise<string> {
    const { items, resourceVersion } = await this.#d.http.listWithVersion<Node>(
      'list nodes',
      PATHS.nodes
    );
    const seen = new Set<string>();
    for (const node of items) {
      seen.add(node.metadata?.name ?? '');
      await this.#onNode('MODIFIED', node, wake);
    }
    for (const name of [...this.#index.keys()]) {
      if (!seen.has(name)) this.#forgetNode(name);
    }
    return resourceVersion;
  }

  #forgetNode(name: string): void {
    this.#indexDirty = this.#index.delete(name) || this.#indexDirty;
  }

  async #onNode(type: EventType, node: Node, wake = true): Promise<void> {
    const name = node.metadata?.name ?? '';
    if (type === 'DELETED') return this.#forgetNode(name);
    const old = this.#index.get(name);
    if (wake) {
      await this.#apply(
        resumed.updateNodeResumed(this.#view.view(), old, node)
      );
    }
    const facts = resumed.nodeFactsOf(node);
    if (JSON.stringify(old) !== JSON.stringify(facts)) {
      this.#index.set(name, facts);
      this.#indexDirty = true;
    }
  }

  async #onDaemonSet(type: EventType, ds: DaemonSet): Promise<void> {
    const old = this.#view.get(ds);
    if (type === 'DELETED') {
      this.#view.remove(ds);
      return this.#apply(handlers.deleteDaemonset(this.#view.view(), ds));
    }
    this.#view.put(ds);
    const view = this.#view.view();
    await this.#apply(
      old
        ? handlers.updateDaemonset(view, old, ds)
        : handlers.addDaemonset(view, ds)
    );
  }

  async #onPod(type: EventType, pod: Pod): Promise<void> {
    const view = this.#view.view();
    if (type === 'ADDED') return this.#apply(handlers.addPod(view, pod));
    if (type === 'DELETED') return this.#apply(handlers.deletePod(view, pod));
    return this.#apply(resumed.updatePodResumed(view, pod));
  }

  async #onRevision(type: EventType, rev: ControllerRevision): Promise<void> {
    const view = this.#view.view();
    if (type === 'ADDED') return this.#apply(handlers.addHistory(view, rev));
    if (type === 'DELETED') {
      return this.#apply(handlers.deleteHistory(view, rev));
    }
    return this.#apply(resumed.updateHistoryResumed(view, rev));
  }

  /** Pods missed during a gap: their expectations can no longer be met. */
  async #podsGone(): Promise<string> {
    for (const key of this.#view.keys()) {
      await this.#d.expectations.deleteExpectations(key);
    }
    await this.#enqueueAll();
    return this.#currentVersion('pods');
  }

  async start(stored: Readonly<Record<string, string>>): Promise<void> {
    const listedVersion = await this.#relistDaemonSets();
    this.#index = await this.#d.nodeIndex.load(this.#d.cluster);
    const firstRun = stored.daemonSets === undefined;
    const hasIndex = stored.nodes !== undefined && this.#index.size > 0;
    const versions: Record<Resource, string> = {
      daemonSets: stored.daemonSets ?? listedVersion,
      pods: stored.pods ?? (await this.#currentVersion('pods')),
      revisions: stored.revisions ?? (await this.#currentVersion('revisions')),
      nodes: hasIndex
        ? (stored.nodes ?? '')
        : await this.#relistNodes(!firstRun),
    };
    const now = this.#d.clock.now();
    this.#lastResyncMs = firstRun ? now : Number(stored.resyncAtMs ?? 0);
    if (firstRun || now - this.#lastResyncMs >= this.#o.resyncEveryMs) {
      this.#lastResyncMs = now;
      await this.#enqueueAll();
    }
    const on = {
      daemonSets: (t: EventType, o: KubeObject) => this.#onDaemonSet(t, o),
      pods: (t: EventType, o: KubeObject) => this.#onPod(t, o),
      nodes: (t: EventType, o: KubeObject) => this.#onNode(t, o),
      revisions: (t: EventType, o: KubeObject) =>
        this.#onRevision(t, o as ControllerRevision),
    };
    const gone = {
      daemonSets: async () => {
        const rv = await this.#relistDaemonSets();
        await this.#enqueueAll();
        return rv;
      },
      pods: () => this.#podsGone(),
      nodes: () => this.#relistNodes(),
      revisions: async () => {
        await this.#enqueueAll();
        return this.#currentVersion('revisions');
      },
    };
    for (const r of Object.keys(PATHS) as Resource[]) {
      this.#watches[r] = new ResourceWatch<KubeObject>(
        {
          path: PATHS[r],
          watch: (path, resourceVersion, timeoutSeconds, signal) =>
            this.#d.http.watch<KubeObject>(
              `watch ${r}`,
              path,
              { resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
              signal
            ),
          onEvent: on[r],
          onGone: gone[r],
          clock: this.#d.clock,
          logger: this.#d.logger,
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
        await sleep(250, signal);
        const now = this.#d.clock.now();
        if (now >= this.#o.deadlineMs) break;
        if (this.#o.mode === 'economy' && this.#quietSince(now)) break;
        // Renew well before the lease runs out.
        const every = Math.min(
          CHECKPOINT_EVERY_MS,
          (this.#o.leaseTtlMs ?? LEASE_TTL_MS) / 3
        );
        if (now - lastCheckpointMs >= every) {
          await this.#resyncIfDue(now);
          await this.checkpoint();
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
    await this.#enqueueAll();
  }

  /** Stores the node index (if changed), then the resourceVersions. */
  async checkpoint(): Promise<void> {
    if (this.#indexDirty) {
      await this.#d.nodeIndex.save(this.#d.cluster, this.#index);
      this.#indexDirty = false;
    }
    const versions: Record<string, string> = {
      resyncAtMs: String(this.#lastResyncMs),
    };
    for (const [r, w] of Object.entries(this.#watches)) {
      versions[r] = w.resourceVersion;
    }
    await this.#d.leases.checkpoint(
      this.#d.cluster,
      this.#d.holder,
      versions,
      this.#o.leaseTtlMs ?? LEASE_TTL_MS
    );
  }
}
