/**
 * The product in one process, for `npm start` and end-to-end tests: the
 * watch-bridge of one cluster and reconcile workers, joined by the in-process
 * work queue, with state in memory. The code paths are the Lambda ones
 * (`runClusterBridge`, `Reconciler`, `processKey`, `syncDaemonSet`), composed
 * as the AWS wiring composes them (compose-product.ts); only the queue and
 * state adapters differ.
 */

import { ClusterConnector } from '../adapters/kube/kube-cluster-connector.js';
import { kubeConfigFromFile } from '../adapters/kube/kube-config-for-cluster.js';
import { MemoryBackoffStore } from '../adapters/memory/memory-backoff-store.js';
import { MemoryBridgeLeaseStore } from '../adapters/memory/memory-bridge-lease-store.js';
import { MemoryClusterHealthStore } from '../adapters/memory/memory-cluster-health-store.js';
import { MemoryExpectationsStore } from '../adapters/memory/memory-expectations-store.js';
import { MemoryNodeIndexStore } from '../adapters/memory/memory-node-index-store.js';
import { MemoryOwnershipStore } from '../adapters/memory/memory-ownership-store.js';
import {
  MemoryWorkQueue,
  memoryQueuePorts,
} from '../adapters/memory/memory-work-queue.js';
import { systemClock } from '../adapters/system-clock.js';
import { abortableSleep } from '../bridge/abortable-sleep.js';
import { runClusterBridge } from '../bridge/cluster-bridge.js';
import { toError } from '../errors.js';
import type { RolloutPhase } from '../fleet/fleet-rollout-state.js';
import type {
  CheckpointAge,
  ClusterConnection,
  ClusterRecord,
  Logger,
  MetricsSink,
  RequestBudget,
  SyncMeasurement,
} from '../ports/index.js';
import { ownedKind } from '../reconcile/k8s/daemon-set-kind.js';
import { composeProduct, type Product } from './compose-product.js';

/** How long one bridge run lasts before it hands over to the next. */
const BRIDGE_RUN_MS = 10 * 60_000;

/** Counters a person or a test can watch. */
export class LocalMetrics implements MetricsSink {
  syncs = 0;
  syncErrors = 0;
  creates = 0;
  deletes = 0;
  poison = 0;
  /** 429s the cluster answered, and time requests waited for tokens. */
  apiThrottles = 0;
  budgetWaitMs = 0;
  /** Clusters of messages whose registry record was invalid, in order. */
  readonly invalidRecords: string[] = [];
  /** Failures reported per unhealthy cluster. */
  readonly unhealthy = new Map<string, number>();
  /** Clusters fenced because another controller is active. */
  readonly conflicts = new Set<string>();
  /** Each cluster's last bridge checkpoint age, as the last tick saw it. */
  readonly checkpointAgesMs = new Map<string, number>();
  recordCheckpointAges(ages: readonly CheckpointAge[]): void {
    for (const a of ages) this.checkpointAgesMs.set(a.cluster, a.ageMs);
  }
  /** Each fleet rollout's phase after its last sync, and the syncs run. */
  readonly fleetRollouts = new Map<string, RolloutPhase>();
  fleetSyncs = 0;
  recordFleetRollout(policy: string, phase: RolloutPhase): void {
    this.fleetRollouts.set(policy, phase);
    this.fleetSyncs++;
  }
  recordControllerConflict(cluster: string): void {
    this.conflicts.add(cluster);
  }
  recordClusterUnhealthy(cluster: string, failures: number): void {
    this.unhealthy.set(cluster, failures);
  }
  recordSync(m: SyncMeasurement): void {
    this.syncs++;
    if (m.outcome !== 'synced') this.syncErrors++;
    this.creates += m.creates;
    this.deletes += m.deletes;
    this.apiThrottles += m.budgetUsage.throttled;
    this.budgetWaitMs += m.budgetUsage.waitMs;
  }
  recordPoison(): void {
    this.poison++;
  }
  recordInvalidClusterRecord(cluster: string): void {
    this.invalidRecords.push(cluster);
  }
}

/**
 * Returns the connector `npm start` reaches a cluster with: a kubeconfig
 * file, reads from watched caches as in AWS, the given budget.
 */
export const createLocalConnector = (opts: {
  budget: RequestBudget;
  logger: Logger;
}): ClusterConnector =>
  new ClusterConnector({
    kubeconfigFiles: kubeConfigFromFile,
    cacheReads: true,
    budget: opts.budget,
    clock: systemClock,
    logger: opts.logger,
  });

/** Runs bridge and workers for one cluster until stopped. */
export class LocalRuntime {
  readonly queue = new MemoryWorkQueue();
  readonly metrics = new LocalMetrics();
  readonly expectations = new MemoryExpectationsStore({ clock: systemClock });
  readonly #abort = new AbortController();
  readonly #running: Promise<void>[] = [];
  readonly #record: ClusterRecord;
  readonly #connection: ClusterConnection;
  readonly #logger: Logger;
  readonly #product: Product;
  #bridgeRuns = 0;

  constructor(opts: {
    record: ClusterRecord;
    connection: ClusterConnection;
    logger: Logger;
    /** The budget the connection spends (its 429s and waits are reported). */
    budget?: RequestBudget;
  }) {
    this.#record = opts.record;
    this.#connection = opts.connection;
    this.#logger = opts.logger;
    const record = opts.record;
    this.#product = composeProduct({
      registry: {
        get: async (id) => (id === record.id ? record : undefined),
        list: async () => ({ records: [record], invalid: [] }),
      },
      connect: async () => opts.connection,
      // One pair: the bridge's adds and the syncs' reads share one record.
      ...memoryQueuePorts(this.queue),
      expectations: this.expectations,
      failedPodBackoff: new MemoryBackoffStore(),
      health: new MemoryClusterHealthStore({ clock: systemClock }),
      ownership: new MemoryOwnershipStore({ clock: systemClock }),
      leases: new MemoryBridgeLeaseStore({ clock: systemClock }),
      nodeIndex: new MemoryNodeIndexStore(),
      clock: systemClock,
      logger: opts.logger,
      metrics: this.metrics,
      ...(opts.budget ? { reconcile: { budget: opts.budget } } : {}),
    });
  }

  /** Starts the bridge and `workers` reconcile loops. */
  start(workers = 2): void {
    this.#running.push(this.#bridge());
    for (let i = 0; i < workers; i++) this.#running.push(this.#work());
  }

  async #bridge(): Promise<void> {
    const signal = this.#abort.signal;
    const { queue, expectations, leases, nodeIndex } = this.#product.bridge;
    while (!signal.aborted) {
      try {
        await runClusterBridge(
          {
            cluster: this.#record.id,
            ownerKind: ownedKind(this.#record.ownership).kind,
            watch: this.#connection.watch,
            queue,
            expectations,
            leases,
            nodeIndex,
            holder: `local-${++this.#bridgeRuns}`,
            clock: systemClock,
            logger: this.#logger,
          },
          {
            mode: 'watch',
            deadlineMs: systemClock.now() + BRIDGE_RUN_MS,
            resyncEveryMs: 12 * 60 * 60_000,
            signal,
          }
        );
      } catch (e) {
        if (signal.aborted) return;
        this.#logger.warn('bridge run failed; starting again', {
          error: toError(e).message,
        });
        await abortableSleep(1_000, signal);
      }
    }
  }

  async #work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      const record = {
        messageId: `local-${key}`,
        body: key,
        receiveCount: 1,
        sentAtMs: systemClock.now(),
      };
      try {
        await this.#product.reconciler.forBatch([record])(record);
      } catch (e) {
        // Only queue-state failures land here; the key is retried.
        this.#logger.warn('reconcile failed', { error: toError(e).message });
        this.queue.addRateLimited(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  /** Stops bridge and workers; resolves when everything has stopped. */
  async stop(): Promise<void> {
    this.#abort.abort();
    this.queue.shutDown();
    await Promise.allSettled(this.#running);
  }
}
