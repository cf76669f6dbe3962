/** The token bucket behind the per-cluster API budget (client-go's). */
import { describe, expect, it } from 'vitest';
import {
  type BudgetState,
  burstAt,
  claimSize,
  clampRate,
  DEFAULT_API_CEILING,
  refill,
  startBudget,
  takeTokens,
} from '#lib/policy/request-budget.js';

const ceiling = { qps: 20, burst: 40 };

/** A bucket at 10 qps (burst 20 under `ceiling`) with `over` applied. */
const bucket = (over: Partial<BudgetState> = {}): BudgetState => ({
  tokens: 0,
  atMs: 0,
  rateQps: 10,
  thresholdQps: 20,
  intervalStartMs: 0,
  granted: 0,
  cutAtMs: 0,
  ...over,
});

describe('startBudget', () => {
  it('starts full at the initial 50 qps, slow start up to the ceiling', () => {
    expect(startBudget(1_000, DEFAULT_API_CEILING)).toEqual({
      tokens: 100,
      atMs: 1_000,
      rateQps: 50,
      thresholdQps: 400,
      intervalStartMs: 1_000,
      granted: 0,
      cutAtMs: 0,
    });
  });

  it('starts at the ceiling when a user set one below 50 qps (at most that)', () => {
    expect(startBudget(0, ceiling)).toMatchObject({
      rateQps: 20,
      tokens: 40,
    });
  });
});

describe('clampRate and burstAt', () => {
  it.each([
    { name: 'keeps a rate inside', rate: 12, limits: ceiling, want: 12 },
    { name: 'holds the ceiling', rate: 90, limits: ceiling, want: 20 },
    { name: 'holds the 5-qps floor', rate: 1, limits: ceiling, want: 5 },
    {
      name: 'lets a ceiling under the floor win',
      rate: 3,
      limits: { qps: 2, burst: 4 },
      want: 2,
    },
  ])('$name', ({ rate, limits, want }) => {
    expect(clampRate(rate, limits)).toBe(want);
  });

  it('scales the ceiling’s burst to the rate, at least one token', () => {
    expect(burstAt(50, DEFAULT_API_CEILING)).toBe(100);
    expect(burstAt(400, DEFAULT_API_CEILING)).toBe(800);
    expect(burstAt(5, { qps: 100, burst: 10 })).toBe(1);
  });
});

describe('refill', () => {
  it('adds rate tokens a second, never beyond the burst at that rate', () => {
    expect(refill(bucket(), 500, ceiling)).toMatchObject({
      tokens: 5,
      atMs: 500,
    });
    expect(refill(bucket({ tokens: 15 }), 60_000, ceiling).tokens).toBe(20);
  });

  it('never goes back in time, and adds nothing while a Retry-After holds', () => {
    expect(
      refill(bucket({ tokens: 3, atMs: 2_000 }), 1_000, ceiling)
    ).toMatchObject({ tokens: 3, atMs: 2_000 });
  });

  it('holds a stored rate under a ceiling lowered since', () => {
    expect(
      refill(bucket({ rateQps: 300 }), 1_000, { qps: 50, burst: 100 })
    ).toMatchObject({ rateQps: 50, tokens: 50 });
  });
});

describe('claimSize', () => {
  it('claims a tenth of a second of the rate, at least 5 tokens', () => {
    expect(claimSize(10)).toBe(5);
    expect(claimSize(50)).toBe(5);
    expect(claimSize(400)).toBe(40);
  });
});

describe('takeTokens', () => {
  it('takes up to what is wanted and what is whole, counting it as granted', () => {
    expect(
      takeTokens(bucket({ tokens: 20, granted: 3 }), 5, 0, ceiling)
    ).toEqual({
      state: bucket({ tokens: 15, granted: 8 }),
      taken: 5,
      waitMs: 0,
    });
    expect(takeTokens(bucket({ tokens: 2.5 }), 5, 0, ceiling).taken).toBe(2);
  });

  it('says how long until the wanted tokens are there when none is (a chunk per claim)', () => {
    const fast = bucket({ tokens: 0.5, rateQps: 50 });
    const limits = { qps: 100, burst: 200 };
    expect(takeTokens(fast, 5, 0, limits)).toMatchObject({
      taken: 0,
      waitMs: 90,
    });
    expect(takeTokens(fast, 1, 0, limits)).toMatchObject({
      taken: 0,
      waitMs: 10,
    });
  });

  it('waits at most 100 ms of refill longer than for one token, and never for more than a burst', () => {
    expect(takeTokens(bucket({ tokens: 0.5 }), 5, 0, ceiling)).toMatchObject({
      taken: 0,
      waitMs: 50,
    });
    expect(
      takeTokens(bucket({ rateQps: 1_000 }), 50, 0, { qps: 1_000, burst: 3 })
    ).toMatchObject({ taken: 0, waitMs: 3 });
  });

  it('takes the tokens of a bucket counted on a clock ahead of the reader’s (cost, campaign seed 110019)', () => {
    // Prepare: counted at 1,500 by a writer whose clock is ahead; 12 left.
    const ahead = bucket({ tokens: 12, atMs: 1_500 });
    // Act
    const took = takeTokens(ahead, 5, 1_000, ceiling);
    // Assess
    expect(took).toMatchObject({ taken: 5, waitMs: 0 });
    expect(took.state).toMatchObject({ tokens: 7, atMs: 1_500 });
  });

  it('never answers a wait of zero or less when it gives nothing (cost, campaign seed 110019)', () => {
    for (const atMs of [0, 900, 1_000, 1_001, 3_000]) {
      for (const tokens of [0, 0.2, 0.999]) {
        const { taken, waitMs } = takeTokens(
          bucket({ tokens, atMs }),
          5,
          1_000,
          ceiling
        );
        expect({ atMs, tokens, taken, positive: waitMs > 0 }).toEqual({
          atMs,
          tokens,
          taken: 0,
          positive: true,
        });
      }
    }
  });

  it('gives nothing while a Retry-After holds, and waits for its end and a refill', () => {
    // Prepare: blocked until 1,500 with tokens left from before.
    const blocked = bucket({ tokens: 0, atMs: 1_500 });
    // Act
    const took = takeTokens(blocked, 5, 1_000, ceiling);
    // Assess
    expect(took).toMatchObject({ taken: 0, waitMs: 500 + 100 });
  });
});
