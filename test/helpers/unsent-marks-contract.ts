/**
 * The unsent-mark contract every WorkQueueMarks store keeps (memory and
 * DynamoDB): a mark whose message was never confirmed sent (its sender died
 * between mark and send) stops blocking after UNSENT_MARK_MS; a confirmed one
 * blocks for the dirty-mark TTL; a sender may retry its own mark at once,
 * and confirms only its own; an add that found another's unsent mark can
 * learn its fate.
 */
import { expect, it } from 'vitest';
import type { WorkQueueLedger, WorkQueueMarks } from '#lib/ports/index.js';
import { isMarked, UNSENT_MARK_MS } from '#lib/workqueue/dirty-mark.js';

/** Registers the contract's tests for stores (and their clocks) made by `newStore`. */
export const unsentMarksContract = (
  newStore: () => {
    store: WorkQueueMarks & WorkQueueLedger;
    clock: { step(ms: number): void };
  },
  newKey: () => string
): void => {
  it('converges-after-faults: a mark whose sender died before sending stops blocking after UNSENT_MARK_MS; a confirmed one does not', async () => {
    // Prepare: one sender died between mark and send (no confirm).
    const { store, clock } = newStore();
    const key = newKey();
    await store.markDirty(key, undefined, 'dead-sender');
    const within = isMarked(await store.markDirty(key));
    clock.step(UNSENT_MARK_MS + 1);
    // Act
    const retry = isMarked(await store.markDirty(key, undefined, 'retry'));
    await store.confirmMark(key, 'retry');
    clock.step(UNSENT_MARK_MS + 1);
    const afterConfirm = isMarked(await store.markDirty(key));
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
    const mine = isMarked(await store.markDirty(key, undefined, 'mine'));
    const theirs = isMarked(await store.markDirty(key, undefined, 'theirs'));
    clock.step(UNSENT_MARK_MS + 1);
    // Still unconfirmed (the wrong id confirmed nothing): replaceable.
    const later = isMarked(await store.markDirty(key, undefined, 'later'));
    // Assess
    expect([mine, theirs, later]).toEqual([true, false, true]);
  });

  it('converges-after-faults: tells an add that coalesced whether the mark it found was sent (queued) or not yet (unsent, with its id: its sender may be dead)', async () => {
    // Prepare
    const { store } = newStore();
    const key = newKey();
    const first = await store.markDirty(key, undefined, 'first');
    // Act
    const whileUnsent = await store.markDirty(key, undefined, 'other');
    await store.confirmMark(key, 'first');
    const afterConfirm = await store.markDirty(key, undefined, 'other');
    // Assess
    expect([first, whileUnsent, afterConfirm]).toEqual([
      { kind: 'marked' },
      { kind: 'unsent', markId: 'first' },
      { kind: 'queued' },
    ]);
  });

  it('converges-after-faults: tells a waiting add the fate of the mark it found — pending, sent, consumed by a sync that began after it, or gone once cleared, replaced or stale (campaign seed 60459)', async () => {
    // Prepare: one key per fate.
    const { store, clock } = newStore();
    const [pending, sent, consumed, cleared, replaced, stale] = [
      newKey(),
      newKey(),
      newKey(),
      newKey(),
      newKey(),
      newKey(),
    ] as const;
    for (const key of [pending, sent, consumed, cleared, replaced, stale]) {
      await store.markDirty(key, undefined, 'found');
    }
    await store.confirmMark(sent, 'found');
    await store.beginSync(consumed);
    await store.clearDirty(cleared);
    await store.beginSync(replaced);
    await store.markDirty(replaced, undefined, 'newer');
    clock.step(UNSENT_MARK_MS + 1);
    await store.markDirty(pending, undefined, 'found');
    // Act
    const fates = await Promise.all(
      [pending, sent, consumed, cleared, replaced, stale].map((key) =>
        store.markFate(key, 'found')
      )
    );
    // Assess
    expect(fates).toEqual([
      'pending',
      'sent',
      'consumed',
      'gone',
      'gone',
      'gone',
    ]);
  });

  it("clears only its own mark when given the mark's id (an add's undo leaves another sender's newer mark)", async () => {
    // Prepare
    const { store } = newStore();
    const key = newKey();
    await store.markDirty(key, undefined, 'newer');
    // Act
    await store.clearDirty(key, 'failed-send');
    const afterOthersUndo = await store.markFate(key, 'newer');
    await store.clearDirty(key, 'newer');
    const afterOwnUndo = await store.markFate(key, 'newer');
    // Assess
    expect([afterOthersUndo, afterOwnUndo]).toEqual(['pending', 'gone']);
  });
};
