/**
 * A sync's deadline: taken from the invocation's remaining time, it stops
 * the sync before its next call to the cluster once passed, so a slow
 * cluster's sync ends inside the function's timeout — acknowledged and
 * requeued with the key's backoff — instead of being killed, redelivered
 * with the whole batch after the visibility timeout, and driven toward the
 * DLQ with the healthy keys it shared the batch with.
 *
 * A call already under way finishes: a budget wait of at most 10 s and
 * one request, which the reconcile handler's margin (15 s) is sized for;
 * expectations stay right because a refused create or delete fails like
 * any other (syncNodes lowers them).
 */
import { ReconcilerError } from '../errors.js';
import type { Clock } from '../ports/index.js';
import type { SyncDeps } from '../sync/context.js';

/** The sync passed its deadline; retried like any failed sync. */
export class SyncDeadlineError extends ReconcilerError {
  constructor(what: string) {
    super(`sync deadline passed before ${what}; the key is requeued`);
    this.name = 'SyncDeadlineError';
  }
}

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
