/**
 * The bridge's wait: a timer that a run's abort signal cuts short, so a
 * stopping run never sits out a retry delay or a checkpoint interval.
 */

/** Resolves after `ms`, or at once when `signal` aborts. */
export const abortableSleep = (
  ms: number,
  signal?: AbortSignal
): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
