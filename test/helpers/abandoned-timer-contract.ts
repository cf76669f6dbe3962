/**
 * The abandoned-timer contract every WorkQueueMarks store keeps (memory and
 * DynamoDB): a timer whose message could not be sent stays on record,
 * abandoned and unsent, so that it blocks no later timer and the messages
 * of timers it replaced still fire (campaign seed 180457); only its own
 * token abandons it.
 */
import { expect, it } from 'vitest';
import type { WorkQueueMarks } from '#lib/ports/index.js';

/** Registers the contract's tests for stores (and their clocks) made by `newStore`. */
export const abandonedTimerContract = (
  newStore: () => { store: WorkQueueMarks; clock: { now(): number } },
  newKey: () => string
): void => {
  it('keeps an abandoned timer on record, blocking no later timer and no longer armed', async () => {
    // Prepare
    const { store, clock } = newStore();
    const key = newKey();
    const dueAtMs = clock.now() + 1_000;
    const token = await store.armTimer(key, dueAtMs);
    // Act
    await store.abandonTimer(key, token ?? '');
    const abandoned = await store.armedTimer(key);
    const later = await store.armTimer(key, clock.now() + 9_000);
    // Assess
    expect(abandoned).toEqual({
      token,
      dueAtMs,
      unsentSinceMs: clock.now(),
      abandoned: true,
    });
    expect(await store.isTimerArmed(key, token ?? '')).toBe(false);
    expect(await store.armedTimer(key)).toEqual({
      token: later,
      dueAtMs: clock.now() + 9_000,
      unsentSinceMs: clock.now(),
    });
  });

  it('abandons only its own timer', async () => {
    // Prepare
    const { store, clock } = newStore();
    const key = newKey();
    const old = await store.armTimer(key, clock.now() + 5_000);
    const current = await store.armTimer(key, clock.now() + 1_000);
    // Act
    await store.abandonTimer(key, old ?? '');
    // Assess
    expect(await store.isTimerArmed(key, current ?? '')).toBe(true);
  });
};
