/**
 * One work item, as upstream's `processNextWorkItem` and `handleErr` run it:
 * clear the key's dirty mark before any read (so a change during the sync
 * queues another one), sync, then either forget the key's failures and honour
 * `requeueAfterMs`, drop a key that can never succeed, or count the failure
 * and requeue after 5 ms · 2^failures (≤ 1000 s). The same code serves the
 * reconcile Lambda and the local run; only the queue adapters differ.
 */
import {
  TerminalError,
  toError,
  UnsettledExpectationsError,
} from '../errors.js';
import type {
  Logger,
  SeenVersions,
  WorkQueue,
  WorkQueueLedger,
} from '../ports/index.js';
import { itemRetryDelayMs } from '../reconcile/backoff-policy.js';
import type { SyncResult } from '../sync/sync-daemon-set.js';
import { TIMER_SLACK_MS } from '../workqueue/timer-message.js';
import { LATEST_STATE } from './sync-snapshot-reader.js';

/** How a work item ended. */
export type ProcessOutcome =
  | ({ outcome: 'synced' } & SyncResult)
  | {
      outcome: 'retrying';
      failures: number;
      retryAfterMs: number;
      error: Error;
    }
  | { outcome: 'dropped'; error: Error };

/** What processing a key needs. */
export interface ProcessKeyDeps {
  ledger: WorkQueueLedger;
  queue: WorkQueue;
  /**
   * Syncs the key, reading cached collections no older than `seen`;
   * `readLatest` when an attempt of the key may have died, or a write's
   * fate is unknown, since its last successful sync (`seen` then asks for
   * the latest state).
   */
  sync: (
    key: string,
    seen: SeenVersions,
    readLatest: boolean
  ) => Promise<SyncResult>;
  logger: Logger;
}

/**
 * Syncs `key` once and settles its queue state; returns how it ended. Throws
 * only when the queue state itself cannot be updated, or the key's
 * expectations are unsettled (the message is then redelivered).
 *
 * @example
 * const result = await processKey('prod/kube-system/agent', deps);
 */
export const processKey = async (
  key: string,
  deps: ProcessKeyDeps
): Promise<ProcessOutcome> => {
  const { failures, seen, readLatest } = await deps.ledger.beginSync(key);
  // Both are kept until a sync succeeds: a retry reads the latest state too.
  const toForget = failures > 0 || readLatest;
  let result: SyncResult;
  try {
    result = await deps.sync(
      key,
      readLatest ? { ...seen, ...LATEST_STATE } : seen,
      readLatest
    );
  } catch (e) {
    // Left to redelivery, whose attempt drops the key's expectations.
    if (e instanceof UnsettledExpectationsError) throw e;
    const error = toError(e);
    if (e instanceof TerminalError) {
      if (toForget) await deps.ledger.forget(key);
      deps.logger.error('sync can never succeed; dropping key', {
        error: error.message,
      });
      return { outcome: 'dropped', error };
    }
    const count = await deps.ledger.recordFailure(key);
    const retryAfterMs = itemRetryDelayMs(count - 1);
    await deps.queue.addAfter(key, retryAfterMs);
    deps.logger.warn('sync failed; retrying with backoff', {
      error: error.message,
      failures: count,
      retryAfterMs,
    });
    return { outcome: 'retrying', failures: count, retryAfterMs, error };
  }
  if (toForget) await deps.ledger.forget(key);
  // The sync read and released them; a later relabel is noted anew.
  if (seen.releasePods !== undefined) {
    await deps.ledger.forgetReleases(key, seen.releasePods);
  }
  if (result.requeueAfterMs !== undefined) {
    // A time boundary (minReadySeconds, a backoff's end). Under a second
    // the queue adds at once and the key would spin back to back until it
    // passed; the timer's second syncs once, at most 1 s late.
    await deps.queue.addAfter(
      key,
      Math.max(result.requeueAfterMs, TIMER_SLACK_MS)
    );
  }
  return { outcome: 'synced', ...result };
};
