import { describe, expect, it } from 'vitest';
import {
  BURST_REPLICAS,
  firstSlowStartBatch,
  nextSlowStartProof,
  SLOW_START_CARRY_CAP,
  SLOW_START_CARRY_MS,
  slowStartBatchSizes,
} from '#lib/reconcile/slow-start.js';

describe('slowStartBatchSizes (syncNodes slow start)', () => {
  it.each([
    { count: 0, want: [] },
    { count: 1, want: [1] },
    { count: 2, want: [1, 1] },
    { count: 5, want: [1, 2, 2] },
    { count: 7, want: [1, 2, 4] },
    { count: 10, want: [1, 2, 4, 3] },
    { count: BURST_REPLICAS, want: [1, 2, 4, 8, 16, 32, 64, 123] },
  ])('splits $count creates into $want', ({ count, want }) => {
    // Act
    const sizes = slowStartBatchSizes(count);
    // Assess
    expect(sizes).toEqual(want);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(count);
  });
});

describe('slow start carried across syncs', () => {
  it('starts at a given first batch and still doubles', () => {
    expect(slowStartBatchSizes(30, 8)).toEqual([8, 16, 6]);
  });

  it.each([
    { name: 'no proof', proof: undefined, nowMs: 0, want: 1 },
    {
      name: 'a fresh proof of 4',
      proof: { batch: 4, atMs: 0 },
      nowMs: SLOW_START_CARRY_MS,
      want: 8,
    },
    {
      name: 'an expired proof',
      proof: { batch: 4, atMs: 0 },
      nowMs: SLOW_START_CARRY_MS + 1,
      want: 1,
    },
    {
      name: 'a proof past the cap',
      proof: { batch: 123, atMs: 0 },
      nowMs: 0,
      want: SLOW_START_CARRY_CAP,
    },
  ])('first batch with $name: $want', ({ proof, nowMs, want }) => {
    expect(firstSlowStartBatch(proof, nowMs)).toBe(want);
  });

  it('proves the largest round of a sync without failures, and nothing after any failure', () => {
    // Act
    const clean = nextSlowStartProof(
      [
        { size: 1, failed: false },
        { size: 2, failed: false },
        { size: 1, failed: false },
      ],
      5
    );
    const failed = nextSlowStartProof(
      [
        { size: 1, failed: false },
        { size: 2, failed: true },
      ],
      5
    );
    // Assess
    expect(clean).toEqual({ batch: 2, atMs: 5 });
    expect(failed).toBeUndefined();
    expect(nextSlowStartProof([], 5)).toBeUndefined();
  });
});
