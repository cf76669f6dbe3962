import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryWorkQueue } from '#lib/adapters/memory/memory-work-queue.js';
import { itemRetryDelayMs } from '#lib/reconcile/backoff-policy.js';

describe('MemoryWorkQueue (client-go workqueue semantics)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('coalesces duplicate adds of a waiting key', async () => {
    // Prepare
    const q = new MemoryWorkQueue();
    // Act
    q.add('a');
    q.add('a');
    q.add('b');
    // Assess
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
  });

  it('never hands out a key twice at once, and syncs again after a change during processing', async () => {
    // Prepare
    const q = new MemoryWorkQueue();
    q.add('a');
    const first = await q.get();
    // Act: the key changes while it is processed.
    q.add('a');
    q.add('a');
    let second: string | undefined;
    const waiting = q.get().then((k) => {
      second = k;
    });
    await Promise.resolve();
    // Assess
    expect(first).toBe('a');
    expect(second).toBeUndefined();
    q.done('a');
    await waiting;
    expect(second).toBe('a');
    q.done('a');
    expect(q.length).toBe(0);
  });

  it('hands a key straight to a waiting worker', async () => {
    // Prepare
    const q = new MemoryWorkQueue();
    const next = q.get();
    // Act
    q.add('a');
    // Assess
    expect(await next).toBe('a');
  });

  it('keeps the earliest time of delayed adds', async () => {
    // Prepare
    const q = new MemoryWorkQueue();
    // Act
    q.addAfter('a', 5_000);
    q.addAfter('a', 1_000);
    q.addAfter('a', 3_000);
    q.addAfter('b', 0);
    // Assess
    expect(q.length).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(q.length).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(q.length).toBe(2);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(q.length).toBe(2);
  });

  it('backs off per key exponentially and resets on forget', async () => {
    // Prepare
    const q = new MemoryWorkQueue();
    // Act / Assess
    q.addRateLimited('a');
    await vi.advanceTimersByTimeAsync(4);
    expect(q.length).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(await q.get()).toBe('a');
    q.done('a');
    q.addRateLimited('a');
    expect(q.numRequeues('a')).toBe(2);
    await vi.advanceTimersByTimeAsync(9);
    expect(q.length).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(q.length).toBe(1);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
  });

  it('releases waiting workers and ignores adds after shutdown', async () => {
    // Prepare
    const q = new MemoryWorkQueue();
    const waiting = q.get();
    q.addAfter('late', 1_000);
    // Act
    q.shutDown();
    q.add('a');
    q.addAfter('b', 10);
    await vi.advanceTimersByTimeAsync(2_000);
    // Assess
    expect(await waiting).toBeUndefined();
    expect(await q.get()).toBeUndefined();
    expect(q.length).toBe(0);
  });

  it('caps the retry delay at 1000 s', () => {
    // Act / Assess
    expect([0, 1, 2].map((n) => itemRetryDelayMs(n))).toEqual([5, 10, 20]);
    expect(itemRetryDelayMs(17)).toBe(655_360);
    expect(itemRetryDelayMs(18)).toBe(1_000_000);
    expect(itemRetryDelayMs(5_000)).toBe(1_000_000);
  });
});
