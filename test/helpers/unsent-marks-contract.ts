/**
 * The unsent-mark contract every WorkQueueMarks store keeps (memory and
 * DynamoDB): a mark whose message was never confirmed sent (its sender died
 * between mark and send) stops blocking after UNSENT_MARK_MS; a confirmed one
 * blocks for the dirty-mark TTL; a sender may retry its own mark at once,
 * and confirms only its own.
 */
import { expect, it } from 'vitest';
import { UNSENT_MARK_MS } from '#lib/adapters/memory/memory-work-queue-store.js';
import type { WorkQueueMarks } from '#lib/ports/index.js';

/** Registers the contract's tests for stores (and their clocks) made by `newStore`. */
export const unsentMarksContract = (
  newStore: () => { store: WorkQueueMarks; clock: { step(ms: number): void } },
  newKey: () => string
): void => {
  it('converges-after-faults: a mark whose sender died before sending stops blocking after UNSENT_MARK_MS; a confirmed one does not', async () => {
    // Prepare: one sender died between mark and send (no confirm).
    const { store, clock } = newStore();
    const key = newKey();
    await store.markDirty(key, undefined, 'dead-sender');
    const within = await store.markDirty(key);
    clock.step(UNSENT_MARK_MS + 1);
    // Act
    const retry = await store.markDirty(key, undefined, 'retry');
    await store.confirmMark(key, 'retry');
    clock.step(UNSENT_MARK_MS + 1);
    const afterConfirm = await store.markDirty(key);
    // Assess
    expect([within, retry, afterConfirm]).toEqual([false, true, false]);
  });

  it('lets a sender retry its own unsent mark at once, and confirms only its own', async () => {
    // Prepare
    const { store, clock } = newStore();
    const key = newKey();
    await store.markDirty(key, undefined, 'mine');
    // Act
    await store.confirmMark(key, 'someone-else');
    const mine = await store.markDirty(key, undefined, 'mine');
    const theirs = await store.markDirty(key, undefined, 'theirs');
    clock.step(UNSENT_MARK_MS + 1);
    // Still unconfirmed (the wrong id confirmed nothing): replaceable.
    const later = await store.markDirty(key, undefined, 'later');
    // Assess
    expect([mine, theirs, later]).toEqual([true, false, true]);
  });
};
