/**
 * The per-cluster API budget, client-go's token bucket (flowcontrol
 * `NewTokenBucketRateLimiter(qps, burst)`, as kube-controller-manager's
 * `--kube-api-qps` / `--kube-api-burst`), as pure arithmetic over a stored
 * bucket, so every reconciler of a cluster can share one bucket in DynamoDB.
 */
import type { ApiBudget } from '../ports/index.js';

/**
 * The default budget: above kube-controller-manager's 20 qps / burst 30
 * because a sync here also reads (a DaemonSet GET, a node and a pod list,
 * served from the API server's watch cache) where upstream reads its own
 * informer cache: a 100-node create makes about 400 requests here.
 */
export const DEFAULT_API_BUDGET: ApiBudget = { qps: 50, burst: 100 };

/** A stored bucket: tokens left at `atMs`. */
export interface TokenBucket {
  tokens: number;
  atMs: number;
}

/** Returns the bucket refilled up to `nowMs` (a missing bucket is full). */
export const refill = (
  bucket: TokenBucket | undefined,
  nowMs: number,
  budget: ApiBudget
): TokenBucket => {
  if (bucket === undefined) return { tokens: budget.burst, atMs: nowMs };
  const elapsed = Math.max(0, nowMs - bucket.atMs);
  return {
    tokens: Math.min(
      budget.burst,
      bucket.tokens + (elapsed * budget.qps) / 1_000
    ),
    atMs: Math.max(nowMs, bucket.atMs),
  };
};

/**
 * Returns how many whole tokens to take now (at most `want`), and, when none
 * is there, how long until `want` are — at most a burst, and at most what
 * 100 ms of refill brings — so a drained bucket is claimed a chunk at a
 * time, not a token at a time: a cluster at its budget costs one claim per
 * chunk of requests (5 at 50 qps), not one per request, and no request
 * waits more than 100 ms longer than for its own token.
 */
export const takeTokens = (
  bucket: TokenBucket,
  want: number,
  budget: ApiBudget
): { taken: number; waitMs: number } => {
  const taken = Math.min(want, Math.floor(bucket.tokens));
  if (taken >= 1) return { taken, waitMs: 0 };
  const target = Math.max(
    1,
    Math.min(want, budget.burst, Math.floor(budget.qps / 10))
  );
  return {
    taken: 0,
    waitMs: Math.ceil(((target - bucket.tokens) * 1_000) / budget.qps),
  };
};
