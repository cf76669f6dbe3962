/**
 * The raw rolling update keeps at most maxUnavailable nodes without an
 * available new pod, and starts the next replacement as soon as one is.
 */
import { describe, expect, it } from 'vitest';
import { replacementsToStart } from '../../bench/raw-rollout.js';

describe('replacementsToStart', () => {
  it.each([
    {
      name: 'starts maxUnavailable nodes at first',
      started: [],
      updated: [],
      waiting: 100,
      want: 10,
    },
    {
      name: 'starts none while every started node is still unavailable',
      started: ['a', 'b'],
      updated: [],
      waiting: 98,
      want: 0,
      maxUnavailable: 2,
    },
    {
      name: 'starts as many as became available',
      started: ['a', 'b', 'c'],
      updated: ['a', 'c'],
      waiting: 97,
      want: 2,
      maxUnavailable: 3,
    },
    {
      name: 'starts no more than are waiting',
      started: ['a'],
      updated: ['a'],
      waiting: 3,
      want: 3,
    },
  ])('$name', ({ started, updated, waiting, want, maxUnavailable = 10 }) => {
    // Act
    const n = replacementsToStart({
      maxUnavailable,
      started: new Set(started),
      updated: new Set(updated),
      waiting,
    });
    // Assess
    expect(n).toBe(want);
  });
});
