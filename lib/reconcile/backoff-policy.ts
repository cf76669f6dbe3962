/**
 * Ports client-go `util/flowcontrol/backoff.go` (`Backoff.Next`,
 * `Backoff.IsInBackOffSinceUpdate`, `hasExpired`) as pure functions over one
 * entry, so the entry can live in any store.
 *
 * Invariants: the delay starts at `initialMs`, doubles on every `Next`, never
 * exceeds `maxMs`, and an entry not updated for more than 2 × `maxMs` counts
 * as absent (upstream GC and `hasExpired`).
 */

/** One key's backoff state. */
export interface BackoffEntry {
  delayMs: number;
  lastUpdateMs: number;
}

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

/** kube-controller-manager's failed-pod backoff: `NewBackOff(1s, 15m)`. */
export const FAILED_POD_BACKOFF: BackoffPolicy = {
  initialMs: 1_000,
  maxMs: 15 * 60_000,
};

/** Returns whether the entry is stale enough to be treated as absent. */
export const hasExpired = (
  entry: BackoffEntry,
  nowMs: number,
  policy: BackoffPolicy
): boolean => nowMs - entry.lastUpdateMs > 2 * policy.maxMs;

/** Returns whether `nowMs` still falls inside the entry's current delay. */
export const isInBackOffSinceUpdate = (
  entry: BackoffEntry | undefined,
  nowMs: number,
  policy: BackoffPolicy
): boolean =>
  entry !== undefined &&
  !hasExpired(entry, nowMs, policy) &&
  nowMs - entry.lastUpdateMs < entry.delayMs;

/** Returns the entry after one more failure at `nowMs` (upstream `Next`). */
export const nextBackoff = (
  entry: BackoffEntry | undefined,
  nowMs: number,
  policy: BackoffPolicy
): BackoffEntry => {
  if (entry === undefined || hasExpired(entry, nowMs, policy)) {
    return { delayMs: policy.initialMs, lastUpdateMs: nowMs };
  }
  return {
    delayMs: Math.min(entry.delayMs * 2, policy.maxMs),
    lastUpdateMs: nowMs,
  };
};

/**
 * client-go's per-item retry backoff (`ItemExponentialFailureRateLimiter`
 * inside `DefaultControllerRateLimiter`): 5 ms doubled per failure, capped
 * at 1000 s.
 */
export const ITEM_RETRY_BACKOFF: BackoffPolicy = {
  initialMs: 5,
  maxMs: 1_000_000,
};

/** Returns the delay before retry number `failures` (0-based) of a key. */
export const itemRetryDelayMs = (
  failures: number,
  policy: BackoffPolicy = ITEM_RETRY_BACKOFF
): number =>
  // 2^n overflows to Infinity for large n; the cap still applies.
  Math.min(policy.initialMs * 2 ** failures, policy.maxMs);
