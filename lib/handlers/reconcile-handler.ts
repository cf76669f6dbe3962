/**
 * The reconcile function's handler: an SQS batch from the FIFO work queue →
 * one sync per distinct key (Reconciler), reported per record with
 * Powertools' partial batch response, so only records whose queue state
 * could not be settled are redelivered. Why Powertools Batch rather than
 * `@middy/sqs-partial-batch-failure`: the registry here serves that
 * middleware only for middy 6, and mixing middy majors is unsupported; and
 * why `BatchProcessor` rather than the FIFO processor: records of one group
 * are coalesced into one sync, so in-group order never matters, and the FIFO
 * processor would stop the whole batch at the first failure.
 */
import {
  BatchProcessor,
  EventType,
  processPartialResponse,
} from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type {
  Context,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import type { QueuedKey, Reconciler } from '../worker/reconciler.js';

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
}) => {
  const processor = new BatchProcessor(EventType.SQS);
  return middy(
    async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
      o.metrics.addMetric(
        'MessagesReceived',
        MetricUnit.Count,
        event.Records.length
      );
      const handle = o.reconciler.forBatch(event.Records.map(toQueuedKey));
      return processPartialResponse(
        event,
        (record: SQSRecord) => handle(toQueuedKey(record)),
        processor,
        // Every record failing is an outage of our own state store: report
        // them all for redelivery instead of failing the invocation.
        { context, throwOnFullBatchFailure: false }
      );
    }
  )
    .use(injectLambdaContext(o.logger, { resetKeys: true }))
    .use(logMetrics(o.metrics, { captureColdStartMetric: true }));
};
