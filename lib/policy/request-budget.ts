/**
 * The per-cluster API budget, client-go's token bucket (flowcontrol
 * `NewTokenBucketRateLimiter(qps, burst)`, as kube-controller-manager's
 * `--kube-api-qps` / `--kube-api-burst`), as pure arithmetic over a stored
 * bucket, so every reconciler of a cluster can share one bucket in DynamoDB.
 * Unlike client-go's, the bucket's rate is not fixed: it is part of the
 * stored state and moves between a floor and a ceiling as the API server's
 * answers say (adaptive-rate.ts).
 */
import type { ApiBudget } from '../ports/index.js';

/**
 * The ceiling when the cluster's record sets none. kube-apiserver admits
 * 400 requests in flight by default (`--max-requests-inflight`, 200 more
 * for `--max-mutating-requests-inflight`): at the tens of milliseconds a
 * pod POST takes, 400 requests a second hold a few dozen of those seats,
 * and the bench's raw create loop got 1,000 pods through a local API
 * server in 3.1 s (docs/benchmarks.md), the same order.
 * Above that, a mistaken signal path (say, a proxy that hides 429s) would
 * let a runaway rate hurt the server; below it, the ceiling, not the server,
 * would bind. Burst: two seconds of the rate, as the fixed 50/100 before.
 */
export const DEFAULT_API_CEILING: ApiBudget = { qps: 400, burst: 800 };

/**
 * The rate a cluster starts at (and starts over at after an hour idle):
 * the fixed budget this adaptive one replaced, which every cluster took.
 */
export const INITIAL_RATE_QPS = 50;

/**
 * The lowest the rate falls however often the server pushes back: enough
 * for a sync's handful of reads to get through, so a cluster recovers by
 * probing rather than by a timer. Under a lower ceiling, the ceiling.
 */
export const MIN_RATE_QPS = 5;

/**
 * How much of the rate one claim takes at most: a tenth of a second, so a
 * busy cluster costs about ten DynamoDB claims a second per container at
 * any rate, and no request waits more than 100 ms longer than for its own
 * token.
 */
const CLAIM_SPAN_MS = 100;
/** The smallest claim (the chunk of the fixed 50-qps budget). */
const MIN_CLAIM = 5;

/** A cluster's shared budget: its token bucket and the rate that fills it. */
export interface BudgetState {
  /** Tokens left at `atMs`; none while a Retry-After holds. */
  tokens: number;
  /**
   * When `tokens` was counted; in the future while the server's
   * Retry-After holds (refill starts then).
   */
  atMs: number;
  /** Tokens a second now. */
  rateQps: number;
  /** Slow start's threshold: below it the rate doubles, above it it adds. */
  thresholdQps: number;
  /** When the current increase interval began. */
  intervalStartMs: number;
  /** Tokens handed out since `intervalStartMs` (was the rate used?). */
  granted: number;
  /** When the rate was last cut (0: never). */
  cutAtMs: number;
  /** The latency the server answers in when not loaded (ms), once known. */
  baselineMs?: number;
  /** When `baselineMs` was last moved. */
  baselineAtMs?: number;
}

/** Returns the rate `rateQps` held between the floor and the ceiling. */
export const clampRate = (rateQps: number, ceiling: ApiBudget): number =>
  Math.min(ceiling.qps, Math.max(Math.min(MIN_RATE_QPS, ceiling.qps), rateQps));

/**
 * Returns the burst at `rateQps`: the ceiling's burst scaled to the rate
 * (a user's 50/100 keeps its 100 at 50 qps), at least one token.
 */
export const burstAt = (rateQps: number, ceiling: ApiBudget): number =>
  Math.max(1, (ceiling.burst * rateQps) / ceiling.qps);

/** Returns a new cluster's budget: a full bucket at the initial rate. */
export const startBudget = (nowMs: number, ceiling: ApiBudget): BudgetState => {
  const rateQps = clampRate(INITIAL_RATE_QPS, ceiling);
  return {
    tokens: burstAt(rateQps, ceiling),
    atMs: nowMs,
    rateQps,
    // Slow start runs up to the ceiling until the first congestion.
    thresholdQps: ceiling.qps,
    intervalStartMs: nowMs,
    granted: 0,
    cutAtMs: 0,
  };
};

/**
 * Returns the bucket refilled at its rate up to `nowMs`, the rate held
 * under the ceiling (a user may have lowered it since).
 */
export const refill = (
  state: BudgetState,
  nowMs: number,
  ceiling: ApiBudget
): BudgetState => {
  const rateQps = clampRate(state.rateQps, ceiling);
  const elapsed = Math.max(0, nowMs - state.atMs);
  return {
    ...state,
    rateQps,
    tokens: Math.min(
      burstAt(rateQps, ceiling),
      state.tokens + (elapsed * rateQps) / 1_000
    ),
    atMs: Math.max(nowMs, state.atMs),
  };
};

/** Returns how many tokens a container claims at once at `rateQps`. */
export const claimSize = (rateQps: number): number =>
  Math.max(MIN_CLAIM, Math.floor((rateQps * CLAIM_SPAN_MS) / 1_000));

/**
 * Returns how many whole tokens to take now (at most `want`) and the
 * bucket after, and, when none is there, how long until `want` are — after
 * any Retry-After, at most a burst, and at most what 100 ms of refill
 * brings — so a drained bucket is claimed a chunk at a time, not a token
 * at a time, and no request waits more than 100 ms longer than for its
 * own token.
 *
 * Tokens the bucket holds are taken even when it was counted at a time
 * ahead of `nowMs`: a Retry-After empties the bucket (foldSample), so a
 * future `atMs` beside whole tokens only means the writer's clock is ahead
 * of this reader's, and the tokens are as real as its refill. Waiting out
 * that skew instead, with whole tokens left, would give a wait below zero
 * and a claim loop re-reading the store without sleeping.
 */
export const takeTokens = (
  state: BudgetState,
  want: number,
  nowMs: number,
  ceiling: ApiBudget
): { state: BudgetState; taken: number; waitMs: number } => {
  const taken = Math.min(want, Math.floor(state.tokens));
  if (taken >= 1) {
    return {
      state: {
        ...state,
        tokens: state.tokens - taken,
        granted: state.granted + taken,
      },
      taken,
      waitMs: 0,
    };
  }
  const { rateQps } = state;
  const target = Math.max(
    1,
    Math.min(
      want,
      Math.floor(burstAt(rateQps, ceiling)),
      Math.floor(rateQps / 10)
    )
  );
  // Under one token is there, so the refill's share is above zero.
  const blockedMs = Math.max(0, state.atMs - nowMs);
  return {
    state,
    taken: 0,
    waitMs: blockedMs + Math.ceil(((target - state.tokens) * 1_000) / rateQps),
  };
};
