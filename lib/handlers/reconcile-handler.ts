/**
 * The reconcile function's handler: an SQS batch from the FIFO work queue →
 * one sync per distinct key (Reconciler), reported per record in the shape
 * every SQS-fed function here shares (sqs-batch-handler.ts), so only records
 * whose queue state could not be settled are redelivered.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { SQSRecord } from 'aws-lambda';
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
 * get their deadline (at most a quarter of it): a call already under way
 * may still take that long, and the records' outcomes must be settled
 * before the function times out.
 */
export const SYNC_DEADLINE_MARGIN_MS = 15_000;

/** Returns the deadline of a batch's syncs, `remainingMs` before timeout. */
export const syncDeadlineMs = (nowMs: number, remainingMs: number): number =>
  nowMs + remainingMs - Math.min(SYNC_DEADLINE_MARGIN_MS, remainingMs / 4);

/** Returns the middy handler of the reconcile function. */
export const createReconcileHandler = (o: {
  reconciler: Reconciler;
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
      const handle = o.reconciler.forBatch(
        event.Records.map(toQueuedKey),
        syncDeadlineMs(Date.now(), context.getRemainingTimeInMillis())
      );
      return (record) => handle(toQueuedKey(record));
    },
  }).use(logMetrics(o.metrics, { captureColdStartMetric: true }));
