/** A batch's slots shared fairly between clusters; slot-full waits back off. */
import { describe, expect, it } from 'vitest';
import {
  BatchSlots,
  SLOT_WAIT_MAX_MS,
  SlotWaits,
} from '#lib/worker/sync-slots.js';

describe('BatchSlots', () => {
  it('starts another cluster’s key before a fourth key of a cluster that holds two slots', async () => {
    // Prepare: four slots; A's four keys come first, then B's; each task
    // runs until released.
    const slots = new BatchSlots(4);
    const started: string[] = [];
    const release = new Map<string, () => void>();
    const task = (name: string) => () =>
      new Promise<void>((resolve) => {
        started.push(name);
        release.set(name, resolve);
      });
    // Act
    const runs = [
      ...['a1', 'a2', 'a3', 'a4'].map((n) => slots.run('A', task(n))),
      slots.run('B', task('b1')),
    ];
    await new Promise((r) => setTimeout(r, 0));
    const first = [...started];
    release.get('a1')?.();
    await new Promise((r) => setTimeout(r, 0));
    for (const done of release.values()) done();
    await Promise.all(runs);
    // Assess
    expect(first).toEqual(['a1', 'a2', 'b1', 'a3']);
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
  });

  it('gives one cluster every slot when no other cluster waits', async () => {
    // Prepare
    const slots = new BatchSlots(4);
    let inFlight = 0;
    let most = 0;
    const task = async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
    };
    // Act
    await Promise.all(Array.from({ length: 6 }, () => slots.run('A', task)));
    // Assess
    expect(most).toBe(4);
  });
});

describe('SlotWaits', () => {
  it('doubles a key’s wait from 2 s to 30 s while its cluster’s share stays taken, and starts over once it got a slot', () => {
    // Prepare
    const waits = new SlotWaits();
    // Act
    const growing = Array.from({ length: 6 }, (_, i) =>
      waits.next('c/ns/a', i * 1_000)
    );
    const other = waits.next('c/ns/b', 6_000);
    waits.reset('c/ns/a');
    const afterSlot = waits.next('c/ns/a', 7_000);
    const muchLater = waits.next('c/ns/b', 7_000 + 2 * SLOT_WAIT_MAX_MS + 1);
    // Assess
    expect(growing).toEqual([2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    expect(other).toBe(2_000);
    expect(afterSlot).toBe(2_000);
    expect(muchLater).toBe(2_000);
  });
});
