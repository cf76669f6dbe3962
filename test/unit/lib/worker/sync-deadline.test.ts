/** The sync deadline: ports refuse new calls past it; how it is taken. */
import { describe, expect, it, vi } from 'vitest';
import { syncDeadlineMs } from '#lib/handlers/reconcile-handler.js';
import {
  deadlineSignal,
  minSyncTimeMs,
  SyncDeadlineError,
  withDeadline,
} from '#lib/worker/sync-deadline.js';
import { FakeClock } from '../../../helpers/fakes/fake-clock.js';

describe('withDeadline', () => {
  it('lets calls start until the deadline, then refuses them; other properties pass through', async () => {
    // Prepare
    const clock = new FakeClock(1_000);
    const port = { limit: 3, get: async (n: number) => n * 2 };
    const guarded = withDeadline(port, 'reader', 2_000, clock);
    // Act
    const before = await guarded.get(2);
    clock.step(1_000);
    const after = await guarded.get(2).catch((e: unknown) => e);
    // Assess
    expect(before).toBe(4);
    expect(guarded.limit).toBe(3);
    expect(after).toBeInstanceOf(SyncDeadlineError);
    expect((after as Error).message).toBe(
      'sync deadline passed before reader.get; the key is requeued'
    );
  });
});

describe('syncDeadlineMs', () => {
  it('keeps 15 s back from a long invocation, a quarter of a short one', () => {
    expect(syncDeadlineMs(0, 60_000)).toBe(45_000);
    expect(syncDeadlineMs(0, 5_000)).toBe(3_750);
  });
});

describe('deadlineSignal', () => {
  it('aborts when the clock reaches the deadline, and is absent without one', async () => {
    // Prepare
    const clock = new FakeClock(1_000);
    // Act
    const signal = deadlineSignal(1_100, clock);
    const none = deadlineSignal(Number.POSITIVE_INFINITY, clock);
    // Assess
    expect(signal?.aborted).toBe(false);
    await vi.waitFor(() => expect(signal?.aborted).toBe(true));
    expect(none).toBeUndefined();
  });

  it('takes a deadline between two milliseconds (a quarter of an odd remaining time)', async () => {
    // Prepare
    const clock = new FakeClock(1_000);
    // Act
    const signal = deadlineSignal(1_050.25, clock);
    // Assess
    expect(signal?.aborted).toBe(false);
    await vi.waitFor(() => expect(signal?.aborted).toBe(true));
  });
});

describe('minSyncTimeMs', () => {
  it('asks 5 s of a long batch, half of a short one', () => {
    expect(minSyncTimeMs(45_000)).toBe(5_000);
    expect(minSyncTimeMs(3_750)).toBe(1_875);
    expect(minSyncTimeMs(-1)).toBe(0);
  });
});
