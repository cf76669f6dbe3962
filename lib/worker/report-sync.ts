/** How one sync is reported: a metric and a log line. */
import type {
  Clock,
  Logger,
  MetricsSink,
  RequestBudget,
} from '../ports/index.js';
import type { ProcessOutcome } from './process-key.js';

/** What ran: the key's cluster, its records, when, and how it ended. */
export interface SyncReport {
  cluster: string;
  /** When each coalesced message was sent (for the queue lag). */
  records: readonly { sentAtMs: number }[];
  started: number;
  result: ProcessOutcome;
}

/**
 * Reports the sync as a metric and a log line, with what the cluster's
 * requests met in the budget since the last report (429s, token waits).
 */
export const reportSync = (
  o: {
    clock: Clock;
    metrics: MetricsSink;
    budget?: Pick<RequestBudget, 'takeUsage'>;
  },
  run: SyncReport,
  done: { creates: number; deletes: number; logger: Logger }
): void => {
  const { cluster, records, started, result } = run;
  const durationMs = o.clock.now() - started;
  const { creates, deletes, logger } = done;
  const budgetUsage = o.budget?.takeUsage(cluster) ?? {
    throttled: 0,
    waitMs: 0,
  };
  o.metrics.recordSync({
    cluster,
    outcome: result.outcome,
    durationMs,
    creates,
    deletes,
    queueLagMs: Math.max(
      0,
      started - Math.min(...records.map((r) => r.sentAtMs))
    ),
    budgetUsage,
  });
  logger.info('synced', {
    outcome: result.outcome,
    durationMs,
    creates,
    deletes,
    ...(result.outcome === 'synced' && result.requeueAfterMs !== undefined
      ? { requeueAfterMs: result.requeueAfterMs }
      : {}),
  });
};
