/**
 * The signal that bounds the Kubernetes requests of a piece of work (a
 * sync and its deadline), carried by async context rather than through
 * every port: KubeHttp reads it for each request it sends.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { SyncDeadlineError } from '../../../errors.js';
import type { RequestScope } from '../../../ports/index.js';

const scope = new AsyncLocalStorage<AbortSignal>();

/**
 * Runs `work` with every request KubeHttp sends for it aborted once
 * `signal` aborts.
 *
 * @example
 * await withRequestSignal(AbortSignal.timeout(45_000), () => sync(key));
 */
export const withRequestSignal: RequestScope = (signal, work) =>
  scope.run(signal, work);

/** Returns the signal of the work the caller runs for, if any. */
export const requestSignal = (): AbortSignal | undefined => scope.getStore();

/**
 * Sends one request under the caller's deadline, if any: refused once it
 * passed (also when `wait`, a budget wait begun before it, ends after it),
 * aborted when under way; each as SyncDeadlineError, which is not the
 * cluster's failure (the breaker stays closed).
 */
export const underDeadline = async <T>(
  what: string,
  wait: (() => Promise<void>) | undefined,
  send: (signal: AbortSignal | undefined) => Promise<T>
): Promise<T> => {
  const deadline = requestSignal();
  if (deadline?.aborted) throw new SyncDeadlineError(what);
  await wait?.();
  if (deadline?.aborted) throw new SyncDeadlineError(what);
  try {
    return await send(deadline);
  } catch (e) {
    if (deadline?.aborted) {
      throw new SyncDeadlineError(what, { unanswered: true });
    }
    throw e;
  }
};
