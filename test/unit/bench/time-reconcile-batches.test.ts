/**
 * Each reconcile invocation's time runs from the batch's `forBatch` until
 * every record of the batch has settled, failures included.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { QueuedKey, Reconciler } from '#lib/worker/reconciler.js';
import { timeReconcileBatches } from '../../bench/time-reconcile-batches.js';

const key = (body: string): QueuedKey => ({
  messageId: body,
  body,
  receiveCount: 1,
  sentAtMs: 0,
});

/** A reconciler whose syncs take `msOf(key)` and fail for `bad`. */
const newSlowReconciler = (msOf: (body: string) => number) =>
  ({
    forBatch: () => (r: QueuedKey) =>
      new Promise<void>((resolve, reject) =>
        setTimeout(
          () => (r.body === 'bad' ? reject(new Error('bad')) : resolve()),
          msOf(r.body)
        )
      ),
  }) as unknown as Reconciler;

describe('timeReconcileBatches', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('records one duration per batch, until its slowest record settles', async () => {
    // Prepare
    const reconciler = newSlowReconciler((body) => (body === 'a' ? 30 : 80));
    const durations = timeReconcileBatches(reconciler);
    const records = [key('a'), key('bad')];
    // Act
    const handle = reconciler.forBatch(records);
    const runs = records.map((r) => handle(r).catch(() => undefined));
    await vi.advanceTimersByTimeAsync(100);
    await Promise.all(runs);
    // Assess
    expect(durations).toHaveLength(1);
    expect(durations[0]).toBeGreaterThanOrEqual(80);
    expect(durations[0]).toBeLessThan(100);
  });

  it('records nothing while records of the batch are still unhandled', async () => {
    // Prepare
    const reconciler = newSlowReconciler(() => 10);
    const durations = timeReconcileBatches(reconciler);
    // Act
    const handle = reconciler.forBatch([key('a'), key('b')]);
    const run = handle(key('a'));
    await vi.advanceTimersByTimeAsync(20);
    await run;
    // Assess
    expect(durations).toEqual([]);
  });
});
