/**
 * The reconcile side of the queue, independent of Lambda: a batch of queued
 * keys → one `processKey` per distinct key (records of one key share one
 * sync: duplicate wake-ups coalesce), each with its own logger fields
 * (`daemonSet`, `reconcileId`, `messageId`) and measurements. Poison
 * messages and keys of invalid cluster records are acknowledged
 * (resolve-session.ts).
 *
 * A redelivered message (receive count > 1) means the attempt before died:
 * the visibility timeout outlasts the function timeout, so its writes have
 * landed or never will. Its expectations would wait 5 minutes for creates
 * that never happen, so the ledger notes that the key's syncs read the
 * latest state until one succeeds, each dropping the key's expectations
 * first: its quorum reads see what the dead attempt did (upstream: a
 * restarted controller starts with no expectations). The note outlives the
 * message, which may have been dead-lettered after that last receive.
 */
import { randomUUID } from 'node:crypto';
import { fleetPolicyOf } from '../keys.js';
import { withFields } from '../logging.js';
import { CLUSTER_DAEMON_SET_CONTROLLER } from '../policy/foreign-writes.js';
import type {
  Clock,
  ClusterHealthStore,
  ClusterSyncSlots,
  Logger,
  MetricsSink,
  OwnershipStore,
  RequestBudget,
  RequestScope,
  WorkQueue,
  WorkQueueLedger,
} from '../ports/index.js';
import { syncDaemonSet } from '../sync/sync-daemon-set.js';
import { ClusterBreaker } from './cluster-breaker.js';
import type { ClusterSession, ClusterSessions } from './cluster-sessions.js';
import { CountingPodControl } from './counting-pod-control.js';
import { FightGuard } from './fight-guard.js';
import {
  type FleetOptions,
  fleetMembershipOf,
  reconcileFleetKey,
  reportingUnreachable,
} from './fleet-key.js';
import { noteRedelivery, skipIfFenced } from './key-guards.js';
import { type ProcessOutcome, processKey } from './process-key.js';
import { reportSync } from './report-sync.js';
import { resolveSession } from './resolve-session.js';
import {
  deadlineSignal,
  minSyncTimeMs,
  requeueIfLate,
  withSyncDeadline,
} from './sync-deadline.js';
import {
  BatchSlots,
  clusterOf,
  MAX_PARALLEL_SYNCS,
  SlotWaits,
  takeClusterSlot,
} from './sync-slots.js';
import { notingOwnPods, SyncSnapshotReader } from './sync-snapshot-reader.js';

/** One queue message, as far as reconciling goes. */
export interface QueuedKey {
  messageId: string;
  /** The message body: a key `cluster/namespace/name`. */
  body: string;
  /** How often the queue has handed this message out (1 = first time). */
  receiveCount: number;
  /** When the message was sent (ms since the epoch). */
  sentAtMs: number;
}

/** What the Reconciler needs. */
export interface ReconcilerOptions {
  sessions: Pick<ClusterSessions, 'get' | 'invalidate'>;
  health: ClusterHealthStore;
  ownership: OwnershipStore;
  ledger: WorkQueueLedger;
  queue: WorkQueue;
  clock: Clock;
  logger: Logger;
  metrics: MetricsSink;
  /** Our field manager; any other writer counts as foreign. */
  fieldManager?: string;
  /** How long a half-open breaker's probe may take (tests shorten it). */
  probeTimeoutMs?: number;
  /**
   * Syncs of one batch that run at once (default MAX_PARALLEL_SYNCS); the
   * others wait for a slot.
   */
  maxParallelSyncs?: number;
  /** Each cluster's share of the reconcilers (none: no limit). */
  slots?: ClusterSyncSlots;
  /** Syncs of one cluster at once, fleet-wide (default MAX_SYNCS_PER_CLUSTER). */
  maxSyncsPerCluster?: number;
  /** Where each sync's report takes the cluster's 429s and token waits. */
  budget?: Pick<RequestBudget, 'takeUsage'>;
  /** Bounds each sync's Kubernetes requests by its deadline's signal. */
  requestScope?: RequestScope;
  /** Fleet rollouts' store and the registry (absent: none run). */
  fleet?: FleetOptions;
}

/** What one sync did. */
interface FinishedSync {
  result: ProcessOutcome;
  creates: number;
  deletes: number;
  started: number;
}

/** Reconciles batches of queued keys. */
export class Reconciler {
  readonly #o: ReconcilerOptions;

  readonly #fights: FightGuard;
  readonly #breaker: ClusterBreaker;
  readonly #slotWaits = new SlotWaits();
  readonly #membership: ReturnType<typeof fleetMembershipOf>;

  constructor(options: ReconcilerOptions) {
    this.#o = options;
    this.#membership = fleetMembershipOf(options);
    this.#breaker = new ClusterBreaker(options);
    this.#fights = new FightGuard({
      store: options.ownership,
      metrics: options.metrics,
      ...(options.fieldManager ? { manager: options.fieldManager } : {}),
    });
  }

  /**
   * Returns the handler for the records of one batch; records with the same
   * body share one sync and its outcome. The handler throws only when the
   * record must be redelivered.
   */
  forBatch(
    records: readonly QueuedKey[],
    deadlineMs = Number.POSITIVE_INFINITY
  ): (r: QueuedKey) => Promise<void> {
    const byKey = new Map<string, QueuedKey[]>();
    for (const r of records)
      byKey.set(r.body, [...(byKey.get(r.body) ?? []), r]);
    const slots = new BatchSlots(
      this.#o.maxParallelSyncs ?? MAX_PARALLEL_SYNCS
    );
    const signal = deadlineSignal(deadlineMs, this.#o.clock);
    const minSyncMs = minSyncTimeMs(deadlineMs - this.#o.clock.now());
    const start = (body: string, records: readonly QueuedKey[]) => {
      const run = slots.run(clusterOf(body), () =>
        this.#reconcile(records, deadlineMs, signal, minSyncMs)
      );
      // Each record's handler reports the outcome.
      run.catch(() => undefined);
      return run;
    };
    // Every key is queued at once, so the slots weigh the batch's clusters.
    const runs = new Map(
      [...byKey].map(([body, rs]) => [body, start(body, rs)] as const)
    );
    return (record) => {
      let run = runs.get(record.body);
      if (run === undefined) {
        run = start(record.body, [record]);
        runs.set(record.body, run);
      }
      return run;
    };
  }

  /**
   * Reconciles one key for the records that carry it: guards (fenced
   * cluster, open breaker), then one processKey, then what follows a sync
   * (breaker, fight detection, measurements).
   */
  async #reconcile(
    records: readonly QueuedKey[],
    deadlineMs: number,
    signal: AbortSignal | undefined,
    minSyncMs: number
  ): Promise<void> {
    const [first] = records as [QueuedKey];
    const key = first.body;
    const reconcileId = randomUUID();
    const logger = withFields(this.#o.logger, {
      daemonSet: key.slice(0, 300),
      reconcileId,
      messageId: first.messageId,
      coalesced: records.length,
    });
    const fleetPolicy = fleetPolicyOf(key);
    if (fleetPolicy !== undefined) {
      await noteRedelivery(this.#o.ledger, key, records, logger);
      return reconcileFleetKey(this.#o, key, fleetPolicy, records, logger);
    }
    const session = await resolveSession(this.#o, key, logger);
    if (session === undefined) return;
    // Before any guard that requeues the key without a sync: a requeue
    // must not lose the note that the last attempt died.
    await noteRedelivery(this.#o.ledger, key, records, logger);
    if (await requeueIfLate(this.#o, key, deadlineMs, minSyncMs, logger)) {
      return;
    }
    const cluster = session.record.id;
    if (await skipIfFenced(this.#o, this.#fights, key, logger)) return;
    const admitted = await this.#breaker.admit(
      key,
      session,
      deadlineMs,
      logger
    );
    if (admitted === false) return;
    if (
      !(await takeClusterSlot(
        this.#o,
        key,
        reconcileId,
        deadlineMs,
        logger,
        this.#slotWaits
      ))
    ) {
      // A probe that never ran frees its claim for the cluster's next key.
      await this.#breaker.abandon(cluster, admitted);
      return;
    }
    let synced: FinishedSync;
    try {
      synced = await this.#sync(key, session, logger, deadlineMs, signal);
    } finally {
      await this.#o.slots?.release(cluster, reconcileId).catch(() => undefined);
    }
    const { result, creates, deletes, started } = synced;
    await this.#breaker.settle(cluster, admitted, result, logger);
    const read = result.outcome === 'synced' ? result.read : undefined;
    await this.#fights.inspect(
      key,
      read,
      session.deps.events,
      logger,
      session.record.ownership === 'apps/v1+OnDelete'
        ? CLUSTER_DAEMON_SET_CONTROLLER
        : undefined
    );
    const run = { cluster, records, started, result };
    reportSync(this.#o, run, { creates, deletes, logger });
  }

  /** Runs one processKey over the session's ports, counting pod writes. */
  async #sync(
    key: string,
    session: ClusterSession,
    logger: Logger,
    deadlineMs: number,
    signal: AbortSignal | undefined
  ): Promise<FinishedSync> {
    const started = this.#o.clock.now();
    const guarded = withSyncDeadline(session.deps, deadlineMs, this.#o.clock);
    const podControl = new CountingPodControl(guarded.podControl);
    const run = () =>
      processKey(key, {
        ledger: this.#o.ledger,
        queue: this.#o.queue,
        logger,
        sync: async (k, seen, readLatest) => {
          // A dead attempt's expectations wait for writes that never come
          // (they would hold every later sync back); this sync's quorum
          // reads see its writes.
          if (readLatest) await guarded.expectations.deleteExpectations(k);
          return reportingUnreachable(this.#membership, k, this.#o.clock, () =>
            syncDaemonSet(k, {
              ...guarded,
              // `seen` asks for the latest state when the key's expectations
              // were dropped (processKey merges the ledger's readLatest in).
              reader: new SyncSnapshotReader(guarded.reader, seen, () =>
                this.#o.ledger.seenOf(k)
              ),
              podControl,
              logger,
              noteOwnPods: notingOwnPods(this.#o.queue, k),
              rollsOnDeleteOnly:
                session.record.ownership === 'apps/v1+OnDelete',
              ...(this.#membership && { fleet: this.#membership }),
              readLatestNext: () => this.#o.ledger.requireLatest(k),
            })
          );
        },
      });
    const { requestScope } = this.#o;
    // Requests under way at the deadline are aborted; so is the flush.
    const result = await (signal && requestScope
      ? requestScope(signal, run)
      : run()
    ).finally(() => session.deps.events.flush?.(signal));
    const { creates, deletes } = podControl;
    return { result, creates, deletes, started };
  }
}
