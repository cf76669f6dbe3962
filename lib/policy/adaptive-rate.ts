/**
 * How a cluster's API budget finds the rate its API server admits: TCP's
 * congestion control (RFC 5681) over the shared bucket of request-budget.ts.
 * The rate starts at INITIAL_RATE_QPS and doubles each clean second (slow
 * start) until the first congestion signal, then grows by a fortieth of the
 * ceiling each clean second (additive increase). A 429 — API Priority and
 * Fairness, or max-in-flight, refusing work — halves it and stops every
 * token until its Retry-After has passed; a 5xx on a read, or latency well
 * above its baseline, cuts it to 70 % (the signal is softer: CUBIC's β).
 * It stays between MIN_RATE_QPS and the ceiling the user may set.
 *
 * Invariants: at most one cut per CUT_HOLD_MS (the answers already in
 * flight when the first arrives say nothing new); no increase in an
 * interval with congestion, nor in one whose rate went unused (RFC 7661:
 * an idle cluster must not grow a rate it never tried).
 */
import { ApiErrorReason, type KubeApiError } from '../errors.js';
import type { ApiBudget, ApiSignal } from '../ports/index.js';
import {
  type BudgetState,
  burstAt,
  clampRate,
  refill,
  startBudget,
} from './request-budget.js';

/** How long an increase interval lasts: a clean one raises the rate. */
export const INCREASE_INTERVAL_MS = 1_000;
/**
 * The share of an interval's tokens that must have been taken for it to
 * count: a cluster that used less was limited by its work, not its rate.
 */
const DEMAND_SHARE = 0.5;
/**
 * Additive increase per clean interval, as a share of the ceiling: a
 * halving is climbed back in 20 clean seconds whatever the ceiling.
 */
const ADDITIVE_SHARE = 1 / 40;
/** The cut on a 429: the server said, in so many words, too much. */
export const THROTTLED_BACKOFF = 0.5;
/** The cut on a 5xx read or rising latency: likely, not certain, load. */
export const SOFT_BACKOFF = 0.7;
/**
 * After a cut, further signals leave the rate alone this long: the requests
 * in flight were sent at the old rate, and every container reports them.
 */
export const CUT_HOLD_MS = 1_000;
/**
 * The longest Retry-After honoured: APF sends 1 s; a bogus header must not
 * silence a cluster for longer than a minute.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Latency counts as congestion at this multiple of the baseline… */
const LATENCY_RISE_FACTOR = 3;
/** …and this far above it (a 5-ms answer taking 15 ms is noise)… */
const MIN_LATENCY_RISE_MS = 100;
/** …over at least this many answers (one big list is not a trend). */
const MIN_LATENCY_ANSWERS = 5;
/**
 * The baseline follows slower answers over about 10 s, so a queue that
 * builds shows as a rise before it becomes the baseline; faster answers
 * over about a second, so it tracks the unloaded server.
 */
const BASELINE_RISE_MS = 10_000;
const BASELINE_FALL_MS = 1_000;
/** The least time one sample stands for (two folds in the same ms count). */
const MIN_SAMPLE_SPAN_MS = 100;

/** The answers of one container not yet folded into the shared state. */
export interface ApiSample {
  answers: number;
  latencyTotalMs: number;
  /** 429s. */
  throttled: number;
  /** 5xx answers to reads. */
  serverErrors: number;
  /** Until when a Retry-After holds (0: none). */
  retryUntilMs: number;
}

/** Returns a sample with no answers. */
export const emptySample = (): ApiSample => ({
  answers: 0,
  latencyTotalMs: 0,
  throttled: 0,
  serverErrors: 0,
  retryUntilMs: 0,
});

/**
 * Returns what an answer says about the server's load, from the error it
 * was translated to (kube-errors.ts decides what a status means, once):
 * every 429 (APF rejects before the handler, so for any verb it is the
 * server's load), and a 5xx on a read only — a write refused with 5xx is
 * a failing admission webhook's, its object's problem, as for the breaker
 * (cluster-health.ts).
 */
export const apiSignalOf = (
  latencyMs: number,
  error: KubeApiError | undefined
): ApiSignal => {
  const congestion =
    error?.reason === ApiErrorReason.TooManyRequests
      ? 'throttled'
      : error?.reason === ApiErrorReason.ServerError && !error.write
        ? 'serverError'
        : undefined;
  const retryAfterMs =
    error?.retryAfterSeconds === undefined
      ? undefined
      : Math.max(0, error.retryAfterSeconds * 1_000);
  return {
    latencyMs,
    ...(congestion === undefined ? {} : { congestion }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
};

/** Returns until when a Retry-After of `retryAfterMs` at `nowMs` holds. */
export const retryUntil = (nowMs: number, retryAfterMs: number): number =>
  nowMs + Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);

/** Returns the sample with one more answer, received at `nowMs`. */
export const addSignal = (
  sample: ApiSample,
  signal: ApiSignal,
  nowMs: number
): ApiSample => ({
  answers: sample.answers + 1,
  latencyTotalMs: sample.latencyTotalMs + Math.max(0, signal.latencyMs),
  throttled: sample.throttled + (signal.congestion === 'throttled' ? 1 : 0),
  serverErrors:
    sample.serverErrors + (signal.congestion === 'serverError' ? 1 : 0),
  retryUntilMs:
    signal.retryAfterMs === undefined
      ? sample.retryUntilMs
      : Math.max(sample.retryUntilMs, retryUntil(nowMs, signal.retryAfterMs)),
});

/** Returns both samples as one. */
export const mergeSamples = (a: ApiSample, b: ApiSample): ApiSample => ({
  answers: a.answers + b.answers,
  latencyTotalMs: a.latencyTotalMs + b.latencyTotalMs,
  throttled: a.throttled + b.throttled,
  serverErrors: a.serverErrors + b.serverErrors,
  retryUntilMs: Math.max(a.retryUntilMs, b.retryUntilMs),
});

/** Returns whether the sample carries a signal that must not wait. */
export const isUrgent = (sample: ApiSample): boolean =>
  sample.throttled > 0 || sample.serverErrors > 0 || sample.retryUntilMs > 0;

/**
 * Returns the cluster's budget at `nowMs`: a new one when none is stored,
 * else refilled, and with its rate raised when a clean, used interval has
 * ended (doubled below the threshold, else plus a fortieth of the ceiling).
 */
export const advance = (
  stored: BudgetState | undefined,
  nowMs: number,
  ceiling: ApiBudget
): BudgetState => {
  if (stored === undefined) return startBudget(nowMs, ceiling);
  const state = refill(stored, nowMs, ceiling);
  const elapsed = nowMs - state.intervalStartMs;
  if (elapsed < INCREASE_INTERVAL_MS) return state;
  const used =
    state.granted >= (DEMAND_SHARE * state.rateQps * elapsed) / 1_000;
  const { rateQps, thresholdQps } = state;
  const raised = !used
    ? rateQps
    : rateQps < thresholdQps
      ? Math.min(thresholdQps, rateQps * 2)
      : rateQps + Math.max(1, ceiling.qps * ADDITIVE_SHARE);
  return {
    ...state,
    rateQps: clampRate(raised, ceiling),
    intervalStartMs: nowMs,
    granted: 0,
  };
};

/**
 * Returns the baseline moved toward the sample's mean latency (an EWMA in
 * time, rising slowly, falling fast; none when the sample has no answers)
 * and whether that mean is well above the baseline it was compared with.
 */
const trackLatency = (
  { baselineMs, baselineAtMs }: BudgetState,
  sample: ApiSample,
  nowMs: number
): { baselineMs?: number; baselineAtMs?: number; slow: boolean } => {
  if (sample.answers === 0) return { slow: false };
  const meanMs = sample.latencyTotalMs / sample.answers;
  if (baselineMs === undefined) {
    return { baselineMs: meanMs, baselineAtMs: nowMs, slow: false };
  }
  const slow =
    sample.answers >= MIN_LATENCY_ANSWERS &&
    meanMs >= LATENCY_RISE_FACTOR * baselineMs &&
    meanMs - baselineMs >= MIN_LATENCY_RISE_MS;
  const spanMs = Math.max(MIN_SAMPLE_SPAN_MS, nowMs - (baselineAtMs ?? nowMs));
  const tauMs = meanMs > baselineMs ? BASELINE_RISE_MS : BASELINE_FALL_MS;
  return {
    baselineMs:
      baselineMs + (1 - Math.exp(-spanMs / tauMs)) * (meanMs - baselineMs),
    baselineAtMs: nowMs,
    slow,
  };
};

/**
 * Returns the budget (advanced to `nowMs`) after the answers of `sample`:
 * a Retry-After empties the bucket until it has passed; a 429 halves the
 * rate, a 5xx read or a latency rise cuts it to 70 % (once per
 * CUT_HOLD_MS, never under the floor), and either ends slow start and
 * restarts the increase interval.
 */
export const foldSample = (
  state: BudgetState,
  sample: ApiSample,
  nowMs: number,
  ceiling: ApiBudget
): BudgetState => {
  const { slow, ...baseline } = trackLatency(state, sample, nowMs);
  let next: BudgetState = { ...state, ...baseline };
  if (sample.retryUntilMs > nowMs) {
    next = {
      ...next,
      tokens: Math.min(next.tokens, 0),
      atMs: Math.max(next.atMs, sample.retryUntilMs),
    };
  }
  const throttled = sample.throttled > 0;
  if (!throttled && sample.serverErrors === 0 && !slow) return next;
  if (nowMs - next.cutAtMs >= CUT_HOLD_MS) {
    const rateQps = clampRate(
      next.rateQps * (throttled ? THROTTLED_BACKOFF : SOFT_BACKOFF),
      ceiling
    );
    next = {
      ...next,
      rateQps,
      thresholdQps: rateQps,
      cutAtMs: nowMs,
      tokens: Math.min(next.tokens, burstAt(rateQps, ceiling)),
    };
  }
  return { ...next, intervalStartMs: nowMs, granted: 0 };
};
