/**
 * Never fight another controller: before a sync, a fenced cluster is left
 * alone; after it, what the sync read is checked for writes by another
 * controller (findForeignWrites), and repeated sightings fence the cluster —
 * an Event on the DaemonSet, a metric and an error line say so.
 */

import {
  CONTROLLER_CONFLICT_REASON,
  FIGHT_THRESHOLD,
} from '../policy/fight-detection.js';
import { findForeignWrites } from '../policy/foreign-writes.js';
import type {
  EventRecorder,
  Logger,
  MetricsSink,
  OwnershipFence,
  OwnershipStore,
} from '../ports/index.js';
import type { SyncRead } from '../sync/context.js';

/** Fences clusters where another DaemonSet controller is active. */
export class FightGuard {
  readonly #store: OwnershipStore;
  readonly #metrics: MetricsSink;
  readonly #manager: string | undefined;

  constructor(o: {
    store: OwnershipStore;
    metrics: MetricsSink;
    /** Our field manager (default: the product's bare name). */
    manager?: string;
  }) {
    this.#store = o.store;
    this.#metrics = o.metrics;
    this.#manager = o.manager;
  }

  /** Returns the cluster's fence, if the reconciler must not act there. */
  fenced(cluster: string): Promise<OwnershipFence | undefined> {
    return this.#store.getFence(cluster);
  }

  /** Checks what a sync read; fences the cluster on a fight. */
  async inspect(
    cluster: string,
    read: SyncRead | undefined,
    events: EventRecorder,
    logger: Logger
  ): Promise<void> {
    if (read === undefined) return;
    const ds = read.daemonSet;
    const foreign = findForeignWrites(ds, read.pods, this.#manager);
    if (foreign.length === 0) return;
    const seen = await this.#store.recordForeignWrites(
      cluster,
      foreign.join('; ')
    );
    logger.warn('another controller wrote to a DaemonSet we own', {
      cluster,
      foreign,
      sightings: seen,
    });
    if (seen < FIGHT_THRESHOLD) return;
    const reason = `another DaemonSet controller is acting in cluster ${cluster} (${foreign.join('; ')}); the reconciler stopped acting on this cluster. Turn the other controller off, then clear the fence (npm run clusters -- unfence --id ${cluster}).`;
    await this.#store.fence(cluster, reason);
    this.#metrics.recordControllerConflict(cluster);
    logger.error('controller conflict: cluster fenced', { cluster, foreign });
    await events.record(ds, 'Warning', CONTROLLER_CONFLICT_REASON, reason);
  }
}
