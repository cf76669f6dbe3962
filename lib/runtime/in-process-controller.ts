/**
 * The whole controller in one process, for the local run and tests: four
 * list+watch caches (DaemonSets, pods, nodes, ControllerRevisions) feed the
 * event→key handlers; keys go through a client-go-style work queue to
 * `workers` loops that run `syncDaemonSet`. Expectations are lowered by the
 * observed pod events, as upstream's informer handlers do. The same pieces
 * run split across the watch-bridge and the reconcile function in AWS.
 */

import type { KubeHttp } from '../adapters/kube/kube-http.js';
import { KubeInformer } from '../adapters/kube/kube-informer.js';
import { MemoryWorkQueue } from '../adapters/memory/memory-work-queue.js';
import { TerminalError, toError } from '../errors.js';
import type { ExpectationsStore, Logger } from '../ports.js';
import {
  addDaemonset,
  addHistory,
  addNode,
  addPod,
  type ClusterView,
  deleteDaemonset,
  deleteHistory,
  deletePod,
  type EventKeys,
  updateDaemonset,
  updateHistory,
  updateNode,
  updatePod,
} from '../reconcile/event-keys.js';
import type {
  ControllerRevision,
  DaemonSet,
  Node,
  Pod,
} from '../reconcile/types.js';
import type { SyncDeps } from '../sync/context.js';
import { syncDaemonSet } from '../sync/sync-daemon-set.js';

/** Counters a person or a test can watch. */
export interface ControllerStats {
  syncs: number;
  syncErrors: number;
}

/** Runs informers, queue and workers for one cluster until stopped. */
export class InProcessController {
  readonly queue = new MemoryWorkQueue();
  readonly stats: ControllerStats = { syncs: 0, syncErrors: 0 };
  readonly daemonSets: KubeInformer<DaemonSet>;
  readonly #pods: KubeInformer<Pod>;
  readonly #informers: KubeInformer<never>[];
  readonly #abort = new AbortController();
  readonly #running: Promise<void>[] = [];
  readonly #cluster: string;
  readonly #deps: SyncDeps;
  readonly #expectations: ExpectationsStore;
  readonly #logger: Logger;

  constructor(opts: {
    cluster: string;
    http: KubeHttp;
    deps: SyncDeps;
    logger: Logger;
  }) {
    this.#cluster = opts.cluster;
    this.#deps = opts.deps;
    this.#expectations = opts.deps.expectations;
    this.#logger = opts.logger;
    const { http, logger } = opts;
    const apply = (f: () => EventKeys) => this.#apply(f());
    this.daemonSets = new KubeInformer<DaemonSet>({
      http,
      logger,
      path: '/apis/apps/v1/daemonsets',
      handlers: {
        onAdd: (ds) => apply(() => addDaemonset(this.#view(), ds)),
        onUpdate: (o, c) => apply(() => updateDaemonset(this.#view(), o, c)),
        onDelete: (ds) => apply(() => deleteDaemonset(this.#view(), ds)),
      },
    });
    this.#pods = new KubeInformer<Pod>({
      http,
      logger,
      path: '/api/v1/pods',
      handlers: {
        onAdd: (p) => apply(() => addPod(this.#view(), p)),
        onUpdate: (o, c) => apply(() => updatePod(this.#view(), o, c)),
        onDelete: (p) => apply(() => deletePod(this.#view(), p)),
      },
    });
    const nodes = new KubeInformer<Node>({
      http,
      logger,
      path: '/api/v1/nodes',
      handlers: {
        onAdd: (n) => apply(() => addNode(this.#view(), n, this.#podsOn(n))),
        onUpdate: (o, c) =>
          apply(() => updateNode(this.#view(), o, c, this.#podsOn(c))),
        // Upstream has no node delete handler: PodGC removes the pods.
        onDelete: () => undefined,
      },
    });
    const revisions = new KubeInformer<ControllerRevision>({
      http,
      logger,
      path: '/apis/apps/v1/controllerrevisions',
      handlers: {
        onAdd: (r) => apply(() => addHistory(this.#view(), r)),
        onUpdate: (o, c) => apply(() => updateHistory(this.#view(), o, c)),
        onDelete: (r) => apply(() => deleteHistory(this.#view(), r)),
      },
    });
    this.#informers = [
      this.daemonSets,
      this.#pods,
      nodes,
      revisions,
    ] as unknown as KubeInformer<never>[];
  }

  #view(): ClusterView {
    return {
      cluster: this.#cluster,
      daemonSets: [...this.daemonSets.store.values()],
    };
  }

  #podsOn(node: Node): Pod[] {
    const name = node.metadata?.name;
    return [...this.#pods.store.values()].filter(
      (p) => p.spec?.nodeName === name
    );
  }

  async #apply(result: EventKeys): Promise<void> {
    for (const key of result.dropExpectations) {
      await this.#expectations.deleteExpectations(key);
    }
    for (const { key, observed } of result.expectations) {
      if (observed === 'creation')
        await this.#expectations.creationObserved(key);
      else await this.#expectations.deletionObserved(key);
    }
    for (const key of result.keys) this.queue.add(key);
    for (const { key, afterMs } of result.delayedKeys) {
      this.queue.addAfter(key, afterMs);
    }
  }

  async #work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        const result = await syncDaemonSet(key, this.#deps);
        this.stats.syncs++;
        this.queue.forget(key);
        if (result.requeueAfterMs !== undefined) {
          this.queue.addAfter(key, result.requeueAfterMs);
        }
      } catch (e) {
        this.stats.syncErrors++;
        const error = toError(e);
        if (e instanceof TerminalError) {
          this.queue.forget(key);
          this.#logger.error('dropping key', { key, error: error.message });
        } else {
          this.#logger.warn('sync failed; retrying with backoff', {
            key,
            error: error.message,
            retries: this.queue.numRequeues(key),
          });
          this.queue.addRateLimited(key);
        }
      } finally {
        this.queue.done(key);
      }
    }
  }

  /** Starts the caches, waits for their first lists, then the workers. */
  async start(workers = 2): Promise<void> {
    const signal = this.#abort.signal;
    for (const informer of this.#informers) {
      this.#running.push(informer.run(signal));
    }
    while (!this.#informers.every((i) => i.hasSynced())) {
      if (signal.aborted) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    for (let i = 0; i < workers; i++) this.#running.push(this.#work());
  }

  /** Stops watching and working; resolves when everything has stopped. */
  async stop(): Promise<void> {
    this.#abort.abort();
    this.queue.shutDown();
    await Promise.allSettled(this.#running);
  }
}
