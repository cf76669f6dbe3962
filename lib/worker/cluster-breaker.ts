/**
 * The cluster breaker around each sync: when a cluster, not a DaemonSet, is
 * the problem (policy/cluster-health.ts), its keys wait without a call
 * while the breaker is open. When the backoff runs out the breaker is
 * half-open: one sync claims the probe, asks the cluster for its version
 * with a short timeout, and only then syncs; the cluster's other keys keep
 * waiting. So a cluster that hangs instead of failing holds one reconciler
 * for seconds per backoff period, not every reconciler its keys reach for
 * a whole request timeout.
 */
import { ApiErrorReason, KubeApiError, toError } from '../errors.js';
import { parseDaemonSetKey } from '../keys.js';
import {
  clusterLevelError,
  clusterRetryAfterMs,
} from '../policy/cluster-health.js';
import type {
  Clock,
  ClusterHealth,
  ClusterHealthStore,
  Logger,
  MetricsSink,
  WorkQueue,
  WorkQueueLedger,
} from '../ports/index.js';
import { TIMER_SLACK_MS } from '../workqueue/timer-message.js';
import type { ClusterSession, ClusterSessions } from './cluster-sessions.js';
import type { ProcessOutcome } from './process-key.js';

/** A key waiting for a cluster's probe looks again within these bounds. */
const MIN_PROBE_WAIT_MS = 1_000;
const MAX_PROBE_WAIT_MS = 5_000;
/** How long the probe's GET /version may take. */
const PROBE_TIMEOUT_MS = 5_000;

/** What the breaker needs. */
export interface ClusterBreakerOptions {
  health: ClusterHealthStore;
  sessions: Pick<ClusterSessions, 'invalidate'>;
  ledger: WorkQueueLedger;
  queue: WorkQueue;
  clock: Clock;
  metrics: MetricsSink;
  /** How long the probe may take (default PROBE_TIMEOUT_MS); tests shorten it. */
  probeTimeoutMs?: number;
}

/** A sync let through: the cluster's health, and the probe's claim if it is the probe. */
export interface Admission {
  health: ClusterHealth | undefined;
  probeUntilMs?: number;
}

/** Admits syncs of a cluster, and settles the breaker after each. */
export class ClusterBreaker {
  readonly #o: ClusterBreakerOptions;

  constructor(options: ClusterBreakerOptions) {
    this.#o = options;
  }

  /**
   * Returns the cluster's health when the key may sync now (undefined:
   * healthy; else the sync is the probe, claimed until its deadline);
   * else requeues the key without a call and returns false.
   */
  async admit(
    key: string,
    session: ClusterSession,
    deadlineMs: number,
    logger: Logger
  ): Promise<Admission | false> {
    const { clock, health: store } = this.#o;
    const cluster = session.record.id;
    const health = await store.get(cluster);
    if (health === undefined) return { health };
    if (health.openUntilMs > clock.now()) {
      await this.#wait(key, health, health.openUntilMs, logger);
      return false;
    }
    if (!(await store.claimProbe(cluster, deadlineMs))) {
      // Another sync probes it: look again when it must be done, or sooner
      // (it may end early), without a call either way.
      const probeEndMs = health.probeUntilMs ?? clock.now();
      const at = Math.min(
        Math.max(probeEndMs, clock.now() + MIN_PROBE_WAIT_MS),
        clock.now() + MAX_PROBE_WAIT_MS
      );
      await this.#wait(key, health, at, logger);
      return false;
    }
    try {
      await answersWithin(
        session.connection.probe.version(),
        this.#o.probeTimeoutMs ?? PROBE_TIMEOUT_MS
      );
      return { health, probeUntilMs: deadlineMs };
    } catch (e) {
      const failure =
        clusterLevelError(e) ??
        new KubeApiError(`probe of ${cluster}: ${toError(e).message}`, {
          reason: ApiErrorReason.Unreachable,
          statusCode: 0,
        });
      const after = await this.#open(cluster, health, failure, logger);
      await this.#wait(key, after, after.openUntilMs, logger);
      return false;
    }
  }

  /**
   * Opens the breaker on a cluster-level failure; after the probe, closes
   * it on a success, or frees the claim when the sync failed for another
   * reason — else the cluster's other keys would wait out the probe's
   * deadline (up to 45 s deployed).
   */
  async settle(
    cluster: string,
    { health: before, probeUntilMs }: Admission,
    result: ProcessOutcome,
    logger: Logger
  ): Promise<void> {
    const failure =
      result.outcome === 'retrying'
        ? clusterLevelError(result.error)
        : undefined;
    if (failure !== undefined) {
      await this.#open(cluster, before, failure, logger);
      return;
    }
    if (probeUntilMs === undefined) return;
    if (result.outcome === 'synced') {
      await this.#o.health.reset(cluster);
      logger.info('cluster healthy again', { cluster });
      return;
    }
    await this.#o.health.releaseProbe(cluster, probeUntilMs);
  }

  /**
   * Frees the probe's claim of a sync that was admitted but did not run
   * (its cluster's share of reconcilers was taken), so the cluster's next
   * key probes at once instead of waiting out the claim's deadline.
   */
  async abandon(cluster: string, { probeUntilMs }: Admission): Promise<void> {
    if (probeUntilMs === undefined) return;
    await this.#o.health.releaseProbe(cluster, probeUntilMs);
  }

  /**
   * Opens the breaker, or doubles its period when `seen` (the health the
   * failing sync was admitted under) is still current.
   */
  async #open(
    cluster: string,
    seen: ClusterHealth | undefined,
    failure: KubeApiError,
    logger: Logger
  ): Promise<ClusterHealth> {
    if (failure.reason === ApiErrorReason.Unauthorized) {
      // Rotated credentials: reconnect (and re-read the secret) next time.
      await this.#o.sessions.invalidate(cluster);
    }
    const health = await this.#o.health.recordFailure(
      cluster,
      failure.message,
      clusterRetryAfterMs,
      seen?.failures ?? 0
    );
    this.#o.metrics.recordClusterUnhealthy(cluster, health.failures);
    logger.warn('cluster unhealthy; backing it off', {
      cluster,
      reason: failure.reason,
      failures: health.failures,
      retryAfterMs: health.openUntilMs - this.#o.clock.now(),
    });
    return health;
  }

  /** Requeues the key for `atMs` without a call to the cluster. */
  async #wait(
    key: string,
    health: ClusterHealth,
    atMs: number,
    logger: Logger
  ): Promise<void> {
    const { clock, ledger, queue } = this.#o;
    // Cleared first, or the timer's add would coalesce into nothing.
    await ledger.beginSync(key);
    // At least a second: a shorter delay is an immediate add (SQS counts
    // whole seconds), and a key of a backed-off cluster would spin through
    // the queue until the backoff ends (the fault campaign saw ~40 a second).
    const retryAfterMs = Math.max(atMs - clock.now(), TIMER_SLACK_MS);
    await queue.addAfter(key, retryAfterMs);
    logger.warn('cluster backed off; key requeued without a call', {
      cluster: parseDaemonSetKey(key).cluster,
      failures: health.failures,
      retryAfterMs,
      lastError: health.lastError,
    });
  }
}

/** Resolves as `work` does, or rejects once `ms` have passed first. */
const answersWithin = async <T>(work: Promise<T>, ms: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${ms} ms`)),
          ms
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
};
