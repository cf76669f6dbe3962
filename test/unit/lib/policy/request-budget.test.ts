/** The token bucket behind the per-cluster API budget (client-go's). */
import { describe, expect, it } from 'vitest';
import { refill, takeTokens } from '#lib/policy/request-budget.js';

const budget = { qps: 10, burst: 20 };

describe('refill', () => {
  it('starts full', () => {
    expect(refill(undefined, 1_000, budget)).toEqual({
      tokens: 20,
      atMs: 1_000,
    });
  });

  it('adds qps tokens a second, never beyond the burst', () => {
    expect(refill({ tokens: 0, atMs: 0 }, 500, budget)).toEqual({
      tokens: 5,
      atMs: 500,
    });
    expect(refill({ tokens: 15, atMs: 0 }, 60_000, budget).tokens).toBe(20);
  });

  it('never goes back in time (a clock behind the stored bucket)', () => {
    expect(refill({ tokens: 3, atMs: 2_000 }, 1_000, budget)).toEqual({
      tokens: 3,
      atMs: 2_000,
    });
  });
});

describe('takeTokens', () => {
  it('takes up to what is wanted and what is whole', () => {
    expect(takeTokens({ tokens: 20, atMs: 0 }, 5, budget)).toEqual({
      taken: 5,
      waitMs: 0,
    });
    expect(takeTokens({ tokens: 2.5, atMs: 0 }, 5, budget)).toEqual({
      taken: 2,
      waitMs: 0,
    });
  });

  it('says how long until the wanted tokens are there when none is (a chunk per claim)', () => {
    const fast = { qps: 50, burst: 100 };
    expect(takeTokens({ tokens: 0.5, atMs: 0 }, 5, fast)).toEqual({
      taken: 0,
      waitMs: 90,
    });
    expect(takeTokens({ tokens: 0.5, atMs: 0 }, 1, fast)).toEqual({
      taken: 0,
      waitMs: 10,
    });
  });

  it('waits at most 100 ms of refill longer than for one token, and never for more than a burst', () => {
    expect(takeTokens({ tokens: 0.5, atMs: 0 }, 5, budget)).toEqual({
      taken: 0,
      waitMs: 50,
    });
    expect(
      takeTokens({ tokens: 0, atMs: 0 }, 50, { qps: 1_000, burst: 3 })
    ).toEqual({ taken: 0, waitMs: 3 });
  });
});
