/**
 * The reconcile handler gives each batch's syncs a deadline taken from the
 * invocation's remaining time (F2), keeping a margin for calls under way.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createReconcileHandler } from '#lib/handlers/reconcile-handler.js';
import type { Reconciler } from '#lib/worker/reconciler.js';
import { lambdaContext } from '../../../helpers/lambda-context.js';

const event: SQSEvent = {
  Records: [
    {
      messageId: 'm1',
      receiptHandle: 'r1',
      body: 'c1/default/agent',
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: '0',
        SenderId: 's',
        ApproximateFirstReceiveTimestamp: '0',
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:work.fifo',
      awsRegion: 'us-east-1',
    },
  ],
};

describe('createReconcileHandler', () => {
  it('hands the batch a deadline 15 s before a 60-s invocation times out', async () => {
    // Prepare
    const deadlines: number[] = [];
    const reconciler = {
      forBatch: (_records: unknown, deadlineMs: number) => {
        deadlines.push(deadlineMs);
        return async () => {};
      },
    } as unknown as Reconciler;
    const handler = createReconcileHandler({
      reconciler,
      logger: new Logger({ logLevel: 'SILENT' }),
      metrics: new Metrics({ namespace: 'Test', serviceName: 'unit' }),
    });
    const started = Date.now();
    // Act
    const out = await handler(event, lambdaContext({ timeoutMs: 60_000 }));
    // Assess
    expect(out).toEqual({ batchItemFailures: [] });
    const [deadline = 0] = deadlines;
    expect(deadline - started).toBeGreaterThan(44_000);
    expect(deadline - started).toBeLessThanOrEqual(45_100);
  });

  it('one-daemon-pod-per-node: never settles while a sync still runs, however close the timeout (middy would leave it running as a zombie)', async () => {
    // Prepare: a sync that outlasts its invocation's remaining time.
    let syncEnded = false;
    const reconciler = {
      forBatch: () => async () => {
        await new Promise((r) => setTimeout(r, 150));
        syncEnded = true;
      },
    } as unknown as Reconciler;
    const handler = createReconcileHandler({
      reconciler,
      logger: new Logger({ logLevel: 'SILENT' }),
      metrics: new Metrics({ namespace: 'Test', serviceName: 'unit' }),
    });
    // Act
    const settled = await handler(event, lambdaContext({ timeoutMs: 50 })).then(
      () => 'returned',
      () => 'threw'
    );
    // Assess: Lambda's own timeout, not the handler, ends such a sync.
    expect(settled).toBe('returned');
    expect(syncEnded).toBe(true);
  });
});
