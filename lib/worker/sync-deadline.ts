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
import type { Clock } from '../ports/index.js';
import type { SyncDeps } from '../sync/context.js';

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
    ? AbortSignal.timeout(Math.max(0, deadlineMs - clock.now()))
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
