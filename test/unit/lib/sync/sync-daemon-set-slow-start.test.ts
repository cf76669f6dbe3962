/**
 * The slow start carried across a key's syncs (lib/reconcile/slow-start.ts):
 * upstream restarts at 1 every sync; here a key whose recent sync created
 * every pod it tried starts its next at twice the batch it proved.
 */
import { describe, expect, it } from 'vitest';
import { MemorySlowStartMemory } from '#lib/adapters/memory/memory-slow-start-memory.js';
import { SLOW_START_CARRY_MS } from '#lib/reconcile/slow-start.js';
import { makeNodes } from '#test/helpers/builders.js';
import { newDaemonSetWith } from '#test/helpers/daemon-scenario.js';
import {
  addDaemonSet,
  keyOf,
  newHarness,
  sync,
} from '#test/helpers/harness.js';

/** A harness whose syncs remember proven batches; 7 creates prove 4. */
const afterSevenCreates = async () => {
  const h = newHarness();
  const memory = new MemorySlowStartMemory();
  h.deps.slowStart = memory;
  const ds = addDaemonSet(h, newDaemonSetWith({ type: 'OnDelete' }));
  h.cluster.nodes.push(...makeNodes(0, 7));
  await sync(h, ds);
  return { h, ds, memory };
};

describe('syncDaemonSet slow start across syncs', () => {
  it('remembers the largest batch a sync completed (rounds 1, 2, 4)', async () => {
    // Act
    const { h, ds, memory } = await afterSevenCreates();
    // Assess
    expect(h.cluster.created).toHaveLength(7);
    expect(memory.recall(keyOf(ds))).toEqual({
      batch: 4,
      atMs: h.clock.now(),
    });
  });

  it.each([
    {
      name: 'within 30 s: starts at 8, and 3 of its 8 creates fail',
      stepMs: 1_000,
      calls: 8,
    },
    {
      name: 'past 30 s: starts at 1 as upstream (1 and 2 succeed, 2 of the next 4 fail)',
      stepMs: SLOW_START_CARRY_MS + 1,
      calls: 7,
    },
  ])('a quota met in the next sync, $name', async ({ stepMs, calls }) => {
    // Prepare: room for 5 more pods, 20 more nodes.
    const { h, ds, memory } = await afterSevenCreates();
    h.clock.step(stepMs);
    h.cluster.createLimit = 12;
    h.cluster.nodes.push(...makeNodes(7, 20));
    const before = h.cluster.createCallCount;
    // Act
    const { error } = await sync(h, ds);
    // Assess
    expect(error).toBeInstanceOf(AggregateError);
    expect(h.cluster.createCallCount - before).toBe(calls);
    expect(h.cluster.created).toHaveLength(12);
    expect(memory.recall(keyOf(ds))).toBeUndefined();
  });
});
