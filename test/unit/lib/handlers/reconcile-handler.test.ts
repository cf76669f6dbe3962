/**
 * The reconcile handler renews its batch's leases from the invocation's
 * start, syncs only the records it holds, and gives the batch's syncs a
 * deadline taken from the invocation's remaining time (F2), keeping a
 * margin for calls under way.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createReconcileHandler } from '#lib/handlers/reconcile-handler.js';
import type { MessageLeases, ReceivedMessage } from '#lib/ports/index.js';
import type { QueuedKey, Reconciler } from '#lib/worker/reconciler.js';
import { lambdaContext } from '../../../helpers/lambda-context.js';
import { sqsRecord } from '../../../helpers/sqs-record.js';

const record = (messageId: string, body: string): SQSRecord =>
  sqsRecord(messageId, body);

const event: SQSEvent = { Records: [record('m1', 'c1/default/agent')] };

/** Leases that hold every message, or only `only`; records each request. */
class FakeLeases implements MessageLeases {
  readonly requests: { messages: ReceivedMessage[]; runsForMs: number }[] = [];
  constructor(
    private readonly only?: readonly string[],
    private readonly failure?: Error
  ) {}
  async hold(
    messages: readonly ReceivedMessage[],
    runsForMs: number
  ): Promise<ReadonlySet<string>> {
    this.requests.push({ messages: [...messages], runsForMs });
    if (this.failure) throw this.failure;
    return new Set(
      messages
        .map((m) => m.messageId)
        .filter((id) => this.only === undefined || this.only.includes(id))
    );
  }
}

const silent = () => ({
  logger: new Logger({ logLevel: 'SILENT' }),
  metrics: new Metrics({ namespace: 'Test', serviceName: 'unit' }),
});

/** A reconciler that records the records of its batch and of each sync. */
const recordingReconciler = () => {
  const batches: QueuedKey[][] = [];
  const synced: string[] = [];
  const reconciler = {
    forBatch: (records: QueuedKey[]) => {
      batches.push(records);
      return async (r: QueuedKey) => {
        synced.push(r.messageId);
      };
    },
  } as unknown as Reconciler;
  return { reconciler, batches, synced };
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
      leases: new FakeLeases(),
      ...silent(),
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
      leases: new FakeLeases(),
      ...silent(),
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

  it('one-daemon-pod-per-node: renews the lease of every message from the start of the invocation, for as long as it may run, before any sync', async () => {
    // Prepare
    const leases = new FakeLeases();
    const { reconciler, batches } = recordingReconciler();
    const handler = createReconcileHandler({ reconciler, leases, ...silent() });
    const two: SQSEvent = {
      Records: [record('m1', 'c1/ns/a'), record('m2', 'c1/ns/b')],
    };
    // Act
    await handler(two, lambdaContext({ timeoutMs: 60_000 }));
    // Assess: one request, for both messages under their receipt handles,
    // as long as the invocation's remaining time (at most its timeout).
    expect(leases.requests).toHaveLength(1);
    const [request] = leases.requests;
    expect(request?.messages).toEqual([
      expect.objectContaining({ messageId: 'm1', receiptHandle: 'r-m1' }),
      expect.objectContaining({ messageId: 'm2', receiptHandle: 'r-m2' }),
    ]);
    expect(request?.runsForMs).toBeGreaterThan(59_000);
    expect(request?.runsForMs).toBeLessThanOrEqual(60_000);
    expect(batches).toHaveLength(1);
  });

  it('one-daemon-pod-per-node: does not sync a record whose message was received again while its batch waited, and reports it failed (campaign seed 40285)', async () => {
    // Prepare: m2 is another invocation's by now (its lease ran out
    // before this one started: Lambda retried a throttled invocation).
    const { reconciler, batches, synced } = recordingReconciler();
    const handler = createReconcileHandler({
      reconciler,
      leases: new FakeLeases(['m1']),
      ...silent(),
    });
    const two: SQSEvent = {
      Records: [record('m1', 'c1/ns/a'), record('m2', 'c1/ns/b')],
    };
    // Act
    const out = await handler(two, lambdaContext({ timeoutMs: 60_000 }));
    // Assess: reported failed, so this answer cannot delete it.
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }] });
    expect(batches.map((b) => b.map((r) => r.messageId))).toEqual([['m1']]);
    expect(synced).toEqual(['m1']);
  });

  it('converges-after-faults: syncs nothing and reports every record failed when the leases cannot be renewed (they return after the visibility timeout)', async () => {
    // Prepare
    const { reconciler, synced } = recordingReconciler();
    const handler = createReconcileHandler({
      reconciler,
      leases: new FakeLeases(undefined, new Error('SQS is down')),
      ...silent(),
    });
    const two: SQSEvent = {
      Records: [record('m1', 'c1/ns/a'), record('m2', 'c1/ns/b')],
    };
    // Act
    const out = await handler(two, lambdaContext({ timeoutMs: 60_000 }));
    // Assess
    expect(out).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }],
    });
    expect(synced).toEqual([]);
  });

  it('logs a record that failed, with its error: it is delivered again', async () => {
    // Prepare
    const reconciler = {
      forBatch: () => async () => {
        throw new Error('DynamoDB is down');
      },
    } as unknown as Reconciler;
    const { logger, metrics } = silent();
    const warned: unknown[][] = [];
    logger.warn = ((...args: unknown[]) => {
      warned.push(args);
    }) as Logger['warn'];
    const handler = createReconcileHandler({
      reconciler,
      leases: new FakeLeases(),
      logger,
      metrics,
    });
    // Act
    const out = await handler(event, lambdaContext({ timeoutMs: 60_000 }));
    // Assess
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
    expect(warned).toEqual([
      [
        'record failed; it is delivered again',
        { messageId: 'm1', error: 'DynamoDB is down' },
      ],
    ]);
  });
});
