/**
 * The adaptive rate of the per-cluster API budget: slow start, additive
 * increase, multiplicative decrease on 429s, 5xx reads and rising latency,
 * Retry-After, floor and ceiling — all with time passed in (no clock).
 */
import { describe, expect, it } from 'vitest';
import { ApiErrorReason, KubeApiError } from '#lib/errors.js';
import {
  type ApiSample,
  addSignal,
  advance,
  apiSignalOf,
  CUT_HOLD_MS,
  emptySample,
  foldSample,
  INCREASE_INTERVAL_MS,
  isUrgent,
  MAX_RETRY_AFTER_MS,
  mergeSamples,
} from '#lib/policy/adaptive-rate.js';
import {
  type BudgetState,
  DEFAULT_API_CEILING,
  startBudget,
  takeTokens,
} from '#lib/policy/request-budget.js';
import type { ApiBudget } from '#lib/ports/index.js';

const ceiling = DEFAULT_API_CEILING;

/**
 * Returns the budget after `seconds` clean, busy intervals from `state`:
 * each second every token there is gets taken (a cluster bound by its rate).
 */
const busySeconds = (
  state: BudgetState,
  seconds: number,
  limits: ApiBudget = ceiling
): { state: BudgetState; rates: number[] } => {
  let s = state;
  const rates: number[] = [];
  for (let i = 0; i < seconds; i++) {
    const now = s.intervalStartMs + INCREASE_INTERVAL_MS;
    s = takeTokens(s, 1e6, s.intervalStartMs, limits).state;
    s = advance(s, now, limits);
    rates.push(s.rateQps);
  }
  return { state: s, rates };
};

/** A sample of `n` answers of `latencyMs` each, plus `over`. */
const sample = (
  n: number,
  latencyMs: number,
  over: Partial<ApiSample> = {}
): ApiSample => ({
  ...emptySample(),
  answers: n,
  latencyTotalMs: n * latencyMs,
  ...over,
});

describe('advance', () => {
  it('starts a cluster with no stored budget at 50 qps', () => {
    expect(advance(undefined, 5_000, ceiling)).toEqual(
      startBudget(5_000, ceiling)
    );
  });

  it('doubles the rate each clean, busy second (slow start) up to the ceiling', () => {
    // Act
    const { rates } = busySeconds(startBudget(0, ceiling), 5);
    // Assess
    expect(rates).toEqual([100, 200, 400, 400, 400]);
  });

  it('adds a fortieth of the ceiling a second above the threshold (additive increase)', () => {
    // Prepare: a cut left the threshold at 200.
    const state = {
      ...startBudget(0, ceiling),
      rateQps: 200,
      thresholdQps: 200,
    };
    // Act
    const { rates } = busySeconds(state, 3);
    // Assess
    expect(rates).toEqual([210, 220, 230]);
  });

  it('leaves the rate of a cluster that used less than half of it (RFC 7661)', () => {
    // Prepare: 10 tokens taken in a second at 50 qps.
    let state = startBudget(0, ceiling);
    state = takeTokens(state, 10, 0, ceiling).state;
    // Act
    const after = advance(state, 1_000, ceiling);
    // Assess: a new interval, at the same rate.
    expect(after).toMatchObject({
      rateQps: 50,
      intervalStartMs: 1_000,
      granted: 0,
    });
  });

  it('waits for the interval to end before deciding', () => {
    // Prepare
    const state = takeTokens(startBudget(0, ceiling), 100, 0, ceiling).state;
    // Act
    const after = advance(state, 999, ceiling);
    // Assess
    expect(after).toMatchObject({ rateQps: 50, granted: 100 });
  });

  it('never raises past a user’s ceiling: a 50/100 budget stays at most 50 qps', () => {
    // Act
    const { rates } = busySeconds(startBudget(0, { qps: 50, burst: 100 }), 3, {
      qps: 50,
      burst: 100,
    });
    // Assess
    expect(rates).toEqual([50, 50, 50]);
  });
});

describe('foldSample', () => {
  const at = 10_000;
  const running = (over: Partial<BudgetState> = {}): BudgetState => ({
    ...startBudget(0, ceiling),
    rateQps: 200,
    thresholdQps: 400,
    tokens: 300,
    atMs: at,
    intervalStartMs: at - 500,
    granted: 120,
    baselineMs: 20,
    baselineAtMs: at - 100,
    ...over,
  });

  it('halves the rate on a 429, ends slow start and restarts the interval', () => {
    // Act
    const after = foldSample(
      running(),
      sample(3, 20, { throttled: 1 }),
      at,
      ceiling
    );
    // Assess
    expect(after).toMatchObject({
      rateQps: 100,
      thresholdQps: 100,
      cutAtMs: at,
      intervalStartMs: at,
      granted: 0,
      tokens: 200,
    });
  });

  it('cuts to 70 % on a 5xx read', () => {
    expect(
      foldSample(running(), sample(1, 20, { serverErrors: 1 }), at, ceiling)
        .rateQps
    ).toBeCloseTo(140);
  });

  it('cuts at most once per hold, but holds the increase back for every signal', () => {
    // Prepare: cut 400 ms ago.
    const state = running({ cutAtMs: at - 400, intervalStartMs: at - 400 });
    // Act
    const after = foldSample(
      state,
      sample(1, 20, { throttled: 2 }),
      at,
      ceiling
    );
    const later = foldSample(
      after,
      sample(1, 20, { throttled: 1 }),
      at - 400 + CUT_HOLD_MS,
      ceiling
    );
    // Assess
    expect(after).toMatchObject({ rateQps: 200, intervalStartMs: at });
    expect(later.rateQps).toBe(100);
  });

  it('never cuts under the 5-qps floor', () => {
    expect(
      foldSample(
        running({ rateQps: 6 }),
        sample(1, 20, { throttled: 1 }),
        at,
        ceiling
      ).rateQps
    ).toBe(5);
  });

  it('honours a Retry-After: no token until it has passed, then the bucket refills', () => {
    // Act
    const after = foldSample(
      running(),
      sample(1, 20, { throttled: 1, retryUntilMs: at + 1_000 }),
      at,
      ceiling
    );
    // Assess
    expect(after).toMatchObject({ tokens: 0, atMs: at + 1_000 });
    expect(takeTokens(after, 5, at + 999, ceiling).taken).toBe(0);
    expect(
      takeTokens(advance(after, at + 1_100, ceiling), 5, at + 1_100, ceiling)
        .taken
    ).toBe(5);
  });

  it('ignores a Retry-After that has already passed', () => {
    expect(
      foldSample(running(), sample(1, 20, { retryUntilMs: at }), at, ceiling)
    ).toMatchObject({ tokens: 300, rateQps: 200 });
  });

  it.each([
    {
      name: 'a rise to 3× and 100 ms over the baseline',
      n: 5,
      ms: 140,
      cut: true,
    },
    { name: 'a rise under 3× the baseline', n: 5, ms: 55, cut: false },
    {
      name: 'a rise under 100 ms (noise on a fast server)',
      n: 5,
      ms: 90,
      cut: false,
    },
    { name: 'fewer than 5 answers (one big list)', n: 4, ms: 500, cut: false },
  ])('cuts to 70 % on latency: $name → $cut', ({ n, ms, cut }) => {
    // Act
    const after = foldSample(running(), sample(n, ms), at, ceiling);
    // Assess
    expect(after.rateQps).toBeCloseTo(cut ? 140 : 200);
  });

  it('takes the first answers’ latency as the baseline, without a cut', () => {
    // Act
    const after = foldSample(
      running({ baselineMs: undefined, baselineAtMs: undefined }),
      sample(10, 500),
      at,
      ceiling
    );
    // Assess
    expect(after).toMatchObject({
      baselineMs: 500,
      baselineAtMs: at,
      rateQps: 200,
    });
  });

  it('lets the baseline follow slower answers over about 10 s and faster ones within a second', () => {
    // Act
    const slower = foldSample(
      running({ baselineAtMs: at - 10_000 }),
      sample(1, 40),
      at,
      ceiling
    );
    const faster = foldSample(
      running({ baselineAtMs: at - 1_000 }),
      sample(1, 10),
      at,
      ceiling
    );
    // Assess: one time constant covers 63 % of the way.
    expect(slower.baselineMs).toBeCloseTo(20 + 20 * (1 - Math.exp(-1)));
    expect(faster.baselineMs).toBeCloseTo(20 - 10 * (1 - Math.exp(-1)));
  });

  it('changes nothing but the refill for a sample without answers', () => {
    expect(foldSample(running(), emptySample(), at, ceiling)).toEqual(
      running()
    );
  });
});

describe('samples', () => {
  it('sums answers, latency and signals, keeping the latest Retry-After', () => {
    // Act
    let s = addSignal(emptySample(), { latencyMs: 10 }, 0);
    s = addSignal(
      s,
      { latencyMs: 30, congestion: 'throttled', retryAfterMs: 1_000 },
      100
    );
    s = addSignal(s, { latencyMs: 20, congestion: 'serverError' }, 200);
    // Assess
    expect(s).toEqual({
      answers: 3,
      latencyTotalMs: 60,
      throttled: 1,
      serverErrors: 1,
      retryUntilMs: 1_100,
    });
    expect(isUrgent(s)).toBe(true);
    expect(isUrgent(sample(3, 900))).toBe(false);
    expect(mergeSamples(s, s)).toEqual({
      answers: 6,
      latencyTotalMs: 120,
      throttled: 2,
      serverErrors: 2,
      retryUntilMs: 1_100,
    });
  });

  it('holds a Retry-After to a minute', () => {
    expect(
      addSignal(emptySample(), { latencyMs: 1, retryAfterMs: 3_600_000 }, 0)
        .retryUntilMs
    ).toBe(MAX_RETRY_AFTER_MS);
  });
});

describe('apiSignalOf', () => {
  const error = (
    reason: ApiErrorReason,
    over: { write?: boolean; retryAfterSeconds?: number } = {}
  ) =>
    new KubeApiError('x', {
      reason,
      statusCode: 0,
      ...over,
    });

  it.each([
    { name: 'a 2xx answer', e: undefined, want: { latencyMs: 7 } },
    {
      name: 'a 429 on a write, with its Retry-After',
      e: error(ApiErrorReason.TooManyRequests, {
        write: true,
        retryAfterSeconds: 1,
      }),
      want: { latencyMs: 7, congestion: 'throttled', retryAfterMs: 1_000 },
    },
    {
      name: 'a 5xx on a read',
      e: error(ApiErrorReason.ServerError),
      want: { latencyMs: 7, congestion: 'serverError' },
    },
    {
      name: 'a 5xx on a write (an admission webhook’s)',
      e: error(ApiErrorReason.ServerError, { write: true }),
      want: { latencyMs: 7 },
    },
    {
      name: 'a 409 conflict',
      e: error(ApiErrorReason.Conflict, { write: true }),
      want: { latencyMs: 7 },
    },
  ])('reads $name', ({ e, want }) => {
    expect(apiSignalOf(7, e)).toEqual(want);
  });
});
