/**
 * Never fight another controller: before a sync, a fenced cluster or
 * DaemonSet is left alone; after it, what the sync read is checked for
 * writes by another controller (findForeignWrites). Repeated sightings on a
 * DaemonSet fence that DaemonSet (an hour); a second DaemonSet fenced within
 * the window fences the cluster (until an operator clears it) — an Event on
 * the DaemonSet, a metric and an error line say so each time. A controlled
 * pod someone else created is no fight: a warning Event names it, and the
 * sync handles it as any pod.
 */

import { parseDaemonSetKey } from '../keys.js';
import {
  CONTROLLER_CONFLICT_REASON,
  DAEMON_SET_FENCE_MS,
  FIGHT_THRESHOLD,
  FOREIGN_POD_REASON,
} from '../policy/fight-detection.js';
import { classifyForeignWrites } from '../policy/foreign-writes.js';
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
  readonly #controllers: readonly string[] | undefined;

  constructor(o: {
    store: OwnershipStore;
    metrics: MetricsSink;
    /** Our field manager (default: the product's bare name). */
    manager?: string;
    /**
     * Field managers whose pods are a rival's (default:
     * KNOWN_DAEMON_SET_CONTROLLERS).
     */
    controllers?: readonly string[];
  }) {
    this.#store = o.store;
    this.#metrics = o.metrics;
    this.#manager = o.manager;
    this.#controllers = o.controllers;
  }

  /**
   * Returns the fence of the key's cluster, else of the DaemonSet itself, if
   * the reconciler must not act on it.
   */
  async fenced(
    key: string
  ): Promise<
    (OwnershipFence & { scope: 'cluster' | 'daemonSet' }) | undefined
  > {
    const { cluster } = parseDaemonSetKey(key);
    const [ofCluster, ofDaemonSet] = await Promise.all([
      this.#store.getFence(cluster),
      this.#store.getFence(key),
    ]);
    if (ofCluster) return { ...ofCluster, scope: 'cluster' };
    if (ofDaemonSet) return { ...ofDaemonSet, scope: 'daemonSet' };
    return undefined;
  }

  /**
   * Checks what a sync of `key` read; fences on a fight. `expected` names
   * the DaemonSet's expected status writer when it is not us (the cluster's
   * own controller, in the native OnDelete mode).
   */
  async inspect(
    key: string,
    read: SyncRead | undefined,
    events: EventRecorder,
    logger: Logger,
    expected?: string
  ): Promise<void> {
    if (read === undefined) return;
    const { cluster, namespace, name } = parseDaemonSetKey(key);
    const ds = read.daemonSet;
    const { rival: foreign, stray } = classifyForeignWrites(
      ds,
      read.pods,
      this.#manager,
      this.#controllers,
      expected
    );
    if (stray.length > 0) {
      logger.warn('a pod the DaemonSet controls was created by someone else', {
        cluster,
        stray,
      });
      await events.record(
        ds,
        'Warning',
        FOREIGN_POD_REASON,
        `not a DaemonSet controller: ${stray.join('; ')}; handled as any pod of the DaemonSet`
      );
    }
    if (foreign.length === 0) return;
    const seen = await this.#store.recordForeignWrites(key, foreign.join('; '));
    logger.warn('another controller wrote to a DaemonSet we own', {
      cluster,
      foreign,
      sightings: seen,
    });
    if (seen < FIGHT_THRESHOLD) return;
    const dsReason = `another controller is acting on DaemonSet ${namespace}/${name} (${foreign.join('; ')}); the reconciler stopped acting on it for an hour. Turn the other controller off, then clear the fence (npx dsr clusters unfence --id ${cluster} --daemonset ${namespace}/${name}).`;
    await this.#store.fence(key, dsReason, DAEMON_SET_FENCE_MS);
    this.#metrics.recordControllerConflict(cluster);
    logger.error('controller conflict: DaemonSet fenced', { cluster, foreign });
    await events.record(ds, 'Warning', CONTROLLER_CONFLICT_REASON, dsReason);
    // A second DaemonSet fenced within the window: a controller of them all.
    const fencedDaemonSets = await this.#store.recordForeignWrites(
      `${cluster}#daemon-sets`,
      key
    );
    if (fencedDaemonSets < FIGHT_THRESHOLD) return;
    const reason = `another DaemonSet controller is acting in cluster ${cluster} (${foreign.join('; ')}); the reconciler stopped acting on this cluster. Turn the other controller off, then clear the fence (npx dsr clusters unfence --id ${cluster}).`;
    await this.#store.fence(cluster, reason);
    logger.error('controller conflict: cluster fenced', { cluster, foreign });
    await events.record(ds, 'Warning', CONTROLLER_CONFLICT_REASON, reason);
  }
}
