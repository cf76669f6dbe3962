/**
 * The reconcile function's handler: an SQS batch from the FIFO work queue →
 * its messages' leases renewed from the invocation's start → one sync per
 * distinct key (Reconciler), reported per record in the shape every
 * SQS-fed function here shares (sqs-batch-handler.ts), so only records
 * whose queue state could not be settled are redelivered.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { SQSRecord } from 'aws-lambda';
import { ReconcilerError } from '../errors.js';
import { SYNC_DEADLINE_MARGIN_MS } from '../policy/time-limits.js';
import type { MessageLeases } from '../ports/index.js';
import type { QueuedKey, Reconciler } from '../worker/reconciler.js';
import { createSqsBatchHandler } from './sqs-batch-handler.js';

/** Returns what the Reconciler reads of an SQS record. */
export const toQueuedKey = (record: SQSRecord): QueuedKey => ({
  messageId: record.messageId,
  body: record.body,
  receiveCount: Number(record.attributes.ApproximateReceiveCount ?? '1'),
  sentAtMs: Number(record.attributes.SentTimestamp ?? '0'),
});

/**
 * Time kept back from the invocation's remaining time when a batch's syncs
 * get their deadline (at most a quarter of it): what may still run past it
 * (lib/policy/time-limits.ts), so the records' outcomes are settled before
 * the function times out.
 */
export { SYNC_DEADLINE_MARGIN_MS };

/** Returns the deadline of a batch's syncs, `remainingMs` before timeout. */
export const syncDeadlineMs = (nowMs: number, remainingMs: number): number =>
  nowMs + remainingMs - Math.min(SYNC_DEADLINE_MARGIN_MS, remainingMs / 4);

/**
 * A record whose message another invocation holds, or will: it is not
 * synced here, and is reported failed so this invocation's answer cannot
 * delete it.
 */
export class MessageLeaseLostError extends ReconcilerError {
  constructor(messageId: string) {
    super(`message ${messageId} is no longer this invocation's`);
    this.name = 'MessageLeaseLostError';
  }
}

/** Returns the middy handler of the reconcile function. */
export const createReconcileHandler = (o: {
  reconciler: Reconciler;
  leases: MessageLeases;
  logger: Logger;
  metrics: Metrics;
}) =>
  createSqsBatchHandler({
    logger: o.logger,
    dropMessage: 'dropping message',
    handlerFor: (event, context) => {
      o.metrics.addMetric(
        'MessagesReceived',
        MetricUnit.Count,
        event.Records.length
      );
      const remainingMs = context.getRemainingTimeInMillis();
      const deadlineMs = syncDeadlineMs(Date.now(), remainingMs);
      const ready = holdBatch(o, event.Records, remainingMs).then((held) => ({
        held,
        handle: o.reconciler.forBatch(
          event.Records.filter((r) => held.has(r.messageId)).map(toQueuedKey),
          deadlineMs
        ),
      }));
      // Every record awaits it; one that fails is reported by each of them.
      ready.catch(() => undefined);
      return async (record) => {
        const { held, handle } = await ready;
        if (!held.has(record.messageId)) {
          throw new MessageLeaseLostError(record.messageId);
        }
        return handle(toQueuedKey(record));
      };
    },
  }).use(logMetrics(o.metrics, { captureColdStartMetric: true }));

/**
 * Renews the batch's leases before any sync starts; logs the records that
 * are not held. When the leases cannot be asked for, nothing is synced:
 * every record comes back after the visibility timeout.
 */
const holdBatch = async (
  o: { leases: MessageLeases; logger: Logger; metrics: Metrics },
  records: readonly SQSRecord[],
  remainingMs: number
): Promise<ReadonlySet<string>> => {
  try {
    const held = await o.leases.hold(records, remainingMs);
    const lost = records.filter((r) => !held.has(r.messageId));
    if (lost.length > 0) {
      o.metrics.addMetric('LeasesLost', MetricUnit.Count, lost.length);
      o.logger.warn(
        'messages received again elsewhere while this batch waited; not synced here',
        { messageIds: lost.map((r) => r.messageId) }
      );
    }
    return held;
  } catch (e) {
    o.logger.warn(
      'could not renew the leases of the batch; every record returns after the visibility timeout',
      { error: e instanceof Error ? e.message : String(e) }
    );
    throw e;
  }
};
