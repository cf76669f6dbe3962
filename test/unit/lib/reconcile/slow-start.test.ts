import { describe, expect, it } from 'vitest';
import {
  BURST_REPLICAS,
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
