/**
 * A sync's deadline: taken from the invocation's remaining time, it stops
 * the sync before its next call to the cluster once passed, so a slow
 * cluster's sync ends inside the function's timeout — acknowledged and
 * requeued with the key's backoff — instead of being killed, redelivered
 * with the whole batch after the visibility timeout, and driven toward the
 * DLQ with the healthy keys it shared the batch with.
 *
 * A Kubernetes request under way is aborted at the deadline (the sync runs
 * in a request scope bound to deadlineSignal), and the Event flush after
 * the sync stops there; what may still run past it is what the reconcile
 * handler's margin is sized for (lib/policy/time-limits.ts). Expectations
 * stay right because a refused or aborted create or delete fails like any
 * other (syncNodes lowers them; an aborted one may have landed, so the
 * key's next sync reads the latest state).
 */
import { SyncDeadlineError } from '../errors.js';
import type {
  Clock,
  Logger,
  WorkQueue,
  WorkQueueLedger,
} from '../ports/index.js';
import type { SyncDeps } from '../sync/context.js';
import { TIMER_SLACK_MS } from '../workqueue/timer-message.js';

export { SyncDeadlineError };

/**
 * Returns a signal that aborts at `deadlineMs` (none without a deadline):
 * the sync's requests under way then are aborted, and its Event flush
 * stops.
 */
export const deadlineSignal = (
  deadlineMs: number,
  clock: Clock
): AbortSignal | undefined =>
  Number.isFinite(deadlineMs)
    ? // A timeout takes whole milliseconds; a deadline may fall between.
      AbortSignal.timeout(Math.max(0, Math.ceil(deadlineMs - clock.now())))
    : undefined;

/**
 * Returns `port` with every method refusing to start (a rejected promise
 * with SyncDeadlineError) once `clock` reaches `deadlineMs`.
 */
export const withDeadline = <T extends object>(
  port: T,
  name: string,
  deadlineMs: number,
  clock: Clock
): T =>
  new Proxy(port, {
    get(target, prop) {
      // The target as `this`: port classes keep #private fields.
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        clock.now() >= deadlineMs
          ? Promise.reject(new SyncDeadlineError(`${name}.${String(prop)}`))
          : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  });

/** Returns the sync's ports, each refusing new calls past `deadlineMs`. */
export const withSyncDeadline = <D extends Omit<SyncDeps, 'logger'>>(
  deps: D,
  deadlineMs: number,
  clock: Clock
): D => {
  const guard = <T extends object>(port: T, name: string) =>
    withDeadline(port, name, deadlineMs, clock);
  return {
    ...deps,
    reader: guard(deps.reader, 'reader'),
    podControl: guard(deps.podControl, 'podControl'),
    revisionControl: guard(deps.revisionControl, 'revisionControl'),
    statusWriter: guard(deps.statusWriter, 'statusWriter'),
    // Events stay: recording is best effort and never throws.
  };
};

/**
 * A key whose sync would start with less than this left before its
 * deadline is requeued instead: cut short, the sync would count a failure
 * and grow the key's backoff for the batch's lateness, not its own.
 */
export const MIN_SYNC_TIME_MS = 5_000;

/**
 * Returns how much of a batch's time a key's sync needs left to start:
 * {@link MIN_SYNC_TIME_MS}, or half the batch's time when the function's
 * timeout is so short that the whole batch has less (a key never waits for
 * more time than its batch was ever given).
 */
export const minSyncTimeMs = (batchMs: number): number =>
  Math.min(MIN_SYNC_TIME_MS, Math.max(0, batchMs / 2));

/**
 * Requeues the key at once without a sync and without counting a failure
 * when less than `minSyncMs` is left before `deadlineMs`; returns whether
 * it did.
 */
export const requeueIfLate = async (
  o: { clock: Clock; ledger: WorkQueueLedger; queue: WorkQueue },
  key: string,
  deadlineMs: number,
  minSyncMs: number,
  logger: Logger
): Promise<boolean> => {
  const leftMs = deadlineMs - o.clock.now();
  if (leftMs >= minSyncMs) return false;
  // Cleared first, or the timer's add would coalesce into nothing.
  await o.ledger.beginSync(key);
  await o.queue.addAfter(key, TIMER_SLACK_MS);
  logger.warn('too little time left before the sync deadline; key requeued', {
    leftMs,
    retryAfterMs: TIMER_SLACK_MS,
  });
  return true;
};
