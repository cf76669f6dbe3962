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

/** Returns the middy handler of the reconcile function. */
export const createReconcileHandler = (o: {
  reconciler: Reconciler;
  logger: Logger;
  metrics: Metrics;
}) =>
  createSqsBatchHandler({
    logger: o.logger,
    dropMessage: 'dropping message',
    handlerFor: (event) => {
      o.metrics.addMetric(
        'MessagesReceived',
        MetricUnit.Count,
        event.Records.length
      );
      const handle = o.reconciler.forBatch(event.Records.map(toQueuedKey));
      return (record) => handle(toQueuedKey(record));
    },
  }).use(logMetrics(o.metrics, { captureColdStartMetric: true }));
