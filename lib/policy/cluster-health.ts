/**
 * When a cluster, not a DaemonSet, is the problem: its API server is
 * unreachable or times out, rejects our credentials, or answers a read with
 * 5xx or 429. A write refused with 5xx (a failing admission webhook) or 429
 * concerns its object: that key backs off alone, as upstream's would.
 * Then every key of that cluster would fail the same way, each holding a
 * reconciler for its timeouts; so the cluster is backed off as a whole
 * (1 s doubling to 5 min) and its keys are requeued without a call, leaving
 * the reconcilers to healthy clusters.
 */
import { ApiErrorReason, KubeApiError } from '../errors.js';
import { itemRetryDelayMs } from '../reconcile/backoff-policy.js';

/** The cluster breaker's backoff: 1 s doubling, at most 5 minutes. */
export const CLUSTER_BACKOFF = { initialMs: 1_000, maxMs: 5 * 60_000 };

const CLUSTER_LEVEL: ReadonlySet<string> = new Set([
  ApiErrorReason.Unreachable,
  ApiErrorReason.Unauthorized,
]);
const CLUSTER_LEVEL_ON_READS: ReadonlySet<string> = new Set([
  ApiErrorReason.ServerError,
  ApiErrorReason.TooManyRequests,
]);

const isClusterLevel = (e: KubeApiError): boolean =>
  CLUSTER_LEVEL.has(e.reason) ||
  (!e.write && CLUSTER_LEVEL_ON_READS.has(e.reason));

/** Returns the cluster-level API error inside `e` (causes, aggregates). */
export const clusterLevelError = (e: unknown): KubeApiError | undefined => {
  const seen = new Set<unknown>();
  const queue: unknown[] = [e];
  while (queue.length > 0) {
    const cur = queue.shift();
    if (cur === undefined || cur === null || seen.has(cur)) continue;
    seen.add(cur);
    if (cur instanceof KubeApiError && isClusterLevel(cur)) return cur;
    if (cur instanceof AggregateError) queue.push(...cur.errors);
    if (cur instanceof Error) queue.push(cur.cause);
  }
  return undefined;
};

/** Returns how long the breaker stays open after `failures` failures. */
export const clusterRetryAfterMs = (failures: number): number =>
  itemRetryDelayMs(Math.max(0, failures - 1), CLUSTER_BACKOFF);
