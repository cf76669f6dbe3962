/**
 * The signal that bounds the Kubernetes requests of a piece of work (a
 * sync and its deadline), carried by async context rather than through
 * every port: KubeHttp reads it for each request it sends.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestScope } from '../../ports/index.js';

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
