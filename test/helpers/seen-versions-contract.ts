/**
 * The seen-version contract every WorkQueueMarks + WorkQueueLedger store
 * keeps (memory and DynamoDB): an add raises the key's version per
 * collection, even when it coalesces; nothing lowers or clears it; a sync's
 * begin returns it, and whether the key must read the latest state.
 */
import { expect, it } from 'vitest';
import type { WorkQueueLedger, WorkQueueMarks } from '#lib/ports/index.js';
import { isMarked } from '#lib/workqueue/dirty-mark.js';

/** Registers the contract's tests for stores made by `newStore`. */
export const seenVersionsContract = (
  newStore: () => WorkQueueMarks & WorkQueueLedger,
  newKey: () => string
): void => {
  it('raises the seen version per collection, also when the add coalesces', async () => {
    // Prepare
    const store = newStore();
    const key = newKey();
    // Act
    const first = isMarked(
      await store.markDirty(key, {
        collection: 'pods',
        resourceVersion: '100',
      })
    );
    const coalesced = isMarked(
      await store.markDirty(key, {
        collection: 'pods',
        resourceVersion: '250',
      })
    );
    await store.markDirty(key, { collection: 'nodes', resourceVersion: '90' });
    const start = await store.beginSync(key);
    // Assess
    expect([first, coalesced]).toEqual([true, false]);
    expect(start.seen).toEqual({ pods: '250', nodes: '90' });
  });

  it('never lowers a seen version, and keeps it across syncs (a retry reads as fresh)', async () => {
    // Prepare
    const store = newStore();
    const key = newKey();
    await store.markDirty(key, { collection: 'pods', resourceVersion: '300' });
    await store.beginSync(key);
    // Act: a successor bridge replays an older event
    await store.markDirty(key, { collection: 'pods', resourceVersion: '120' });
    const retry = await store.beginSync(key);
    // Assess
    expect(retry.seen).toEqual({ pods: '300' });
  });

  it('compares versions as numbers, not as strings', async () => {
    // Prepare
    const store = newStore();
    const key = newKey();
    await store.markDirty(key, { collection: 'nodes', resourceVersion: '99' });
    // Act
    await store.markDirty(key, {
      collection: 'nodes',
      resourceVersion: '1000',
    });
    const start = await store.beginSync(key);
    // Assess
    expect(start.seen.nodes).toBe('1000');
  });

  it('keeps the pods to release an add named until a sync forgets them', async () => {
    // Prepare
    const store = newStore();
    const key = newKey();
    const seen = (releasePod: string) => ({
      collection: 'pods' as const,
      resourceVersion: '7',
      releasePod,
    });
    await store.markDirty(key, seen('agent-a'));
    await store.markDirty(key, seen('agent-b'));
    await store.markDirty(key, seen('agent-a'));
    // Act
    const first = await store.beginSync(key);
    await store.forgetReleases(key, ['agent-a']);
    const second = await store.beginSync(key);
    await store.forgetReleases(key, ['agent-b']);
    const third = await store.beginSync(key);
    // Assess
    expect(first.seen.releasePods?.sort()).toEqual(['agent-a', 'agent-b']);
    expect(second.seen.releasePods).toEqual(['agent-b']);
    expect(third.seen).toEqual({ pods: '7' });
  });

  it('begins a sync of a key never added with no seen version', async () => {
    // Prepare
    const store = newStore();
    // Act
    const start = await store.beginSync(newKey());
    // Assess
    expect(start).toEqual({ failures: 0, seen: {}, readLatest: false });
  });

  it('converges-after-faults: after requireLatest, reports readLatest at every begin, through failures and coalesced adds, until forget (campaign seed 4212)', async () => {
    // Prepare: a redelivered message showed a dead attempt of the key.
    const store = newStore();
    const key = newKey();
    await store.markDirty(key, { collection: 'pods', resourceVersion: '40' });
    // Act
    await store.requireLatest(key);
    const first = await store.beginSync(key);
    await store.recordFailure(key);
    await store.markDirty(key);
    const retry = await store.beginSync(key);
    await store.forget(key);
    const after = await store.beginSync(key);
    // Assess
    expect([first.readLatest, retry.readLatest, after.readLatest]).toEqual([
      true,
      true,
      false,
    ]);
    expect(after).toEqual({
      failures: 0,
      seen: { pods: '40' },
      readLatest: false,
    });
  });
};
