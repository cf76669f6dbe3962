/**
 * Times the emulated reconcile function's invocations, for their
 * GB-seconds. The pollers (test/helpers/esm-poller.ts) record how each
 * invocation ended but not how long it ran, and the stack builds the
 * handler itself, so this wraps the one call the handler makes per
 * invocation, `Reconciler.forBatch`, and measures from it until every
 * record of the batch has settled: the handler's own time, which is what
 * Lambda bills (the event-source mapping receives and deletes the messages
 * outside the function). A cold start's init (about 110 ms for the
 * reconcile bundle, docs/benchmarks.md#bundles) is not in it: the emulated
 * function is always warm.
 */
import type { Reconciler } from '#lib/worker/reconciler.js';

/**
 * Wraps `reconciler.forBatch`; returns the list each finished batch's
 * duration (ms) is pushed to.
 */
export const timeReconcileBatches = (reconciler: Reconciler): number[] => {
  const durationsMs: number[] = [];
  const forBatch = reconciler.forBatch.bind(reconciler);
  reconciler.forBatch = (records, deadlineMs) => {
    const started = performance.now();
    const handle = forBatch(records, deadlineMs);
    const runs: Promise<void>[] = [];
    return (record) => {
      const run = handle(record);
      runs.push(run);
      if (runs.length === records.length) {
        void Promise.allSettled(runs).then(() =>
          durationsMs.push(performance.now() - started)
        );
      }
      return run;
    };
  };
  return durationsMs;
};
