/**
 * The ports that guard a cluster's syncs, shared by every reconciler: its
 * breaker (health), its share of the reconcilers (sync slots), and the
 * fences fight detection sets.
 */

/** A cluster's health as the reconcilers see it (a circuit breaker). */
export interface ClusterHealth {
  /** Consecutive syncs that failed at the cluster level. */
  failures: number;
  /** Until then, syncs of the cluster's keys are requeued without a call. */
  openUntilMs: number;
  /** The last cluster-level error, for `check` and logs (no credentials). */
  lastError: string;
  /**
   * While the breaker is half-open: until when the one sync probing the
   * cluster may run (the others are requeued without a call meanwhile).
   */
  probeUntilMs?: number;
}

/** Per-cluster health shared by every reconciler. */
export interface ClusterHealthStore {
  get(cluster: string): Promise<ClusterHealth | undefined>;
  /**
   * Counts a failure and opens the breaker for `retryAfterMs(failures)` —
   * if the count is still `seenFailures`, what the failing sync saw when it
   * was admitted (0: healthy). Else another failure of the same period
   * counted already: syncs that were in flight together fail together and
   * are one piece of evidence, not several (a classic breaker doubles its
   * period once per failed probe). Then the stored health is returned
   * unchanged.
   */
  recordFailure(
    cluster: string,
    error: string,
    retryAfterMs: (failures: number) => number,
    seenFailures: number
  ): Promise<ClusterHealth>;
  /** Closes the breaker after a success. */
  reset(cluster: string): Promise<void>;
  /**
   * Half-open: once the breaker's time has run out, lets one sync probe
   * the cluster until `untilMs`; true for the one that got it. A failure
   * (recordFailure) or a success (reset) ends the probe.
   */
  claimProbe(cluster: string, untilMs: number): Promise<boolean>;
  /**
   * Ends the probe claimed until `untilMs` without a verdict (its sync
   * failed, but not for the cluster): the breaker stays half-open with its
   * count, and the next sync to look claims the probe at once. A newer
   * claim is left alone.
   */
  releaseProbe(cluster: string, untilMs: number): Promise<void>;
}

/**
 * A cluster's share of the reconcilers: at most `max` syncs of one cluster
 * run at once across every reconcile invocation, so a cluster that is slow
 * (but not failing) cannot take every reconciler.
 */
export interface ClusterSyncSlots {
  /** Takes a slot for `holder` until `untilMs`; false when all are taken. */
  acquire(
    cluster: string,
    holder: string,
    max: number,
    untilMs: number
  ): Promise<boolean>;
  /** Gives `holder`'s slot back (a crashed holder's runs out by itself). */
  release(cluster: string, holder: string): Promise<void>;
}

/** Why the reconciler stopped acting on a cluster. */
export interface OwnershipFence {
  fencedAtMs: number;
  reason: string;
}

/**
 * Fight detection's memory per cluster: observations of another controller's
 * writes within a window, and the fence that stops the reconciler acting on
 * the cluster until an operator clears it.
 */
export interface OwnershipStore {
  getFence(cluster: string): Promise<OwnershipFence | undefined>;
  /**
   * Counts an observation in the current window unless `detail` equals the
   * last one counted (the same writes seen again); returns the count.
   */
  recordForeignWrites(cluster: string, detail: string): Promise<number>;
  /**
   * Fences `id` — a cluster, or a DaemonSet key `cluster/ns/name` — for
   * `ttlMs` (a DaemonSet's fence), or until cleared (no TTL).
   */
  fence(id: string, reason: string, ttlMs?: number): Promise<void>;
  /**
   * Clears the fence of `id` and its sightings; a cluster's clears every
   * DaemonSet fence of that cluster too.
   */
  clearFence(id: string): Promise<void>;
}
