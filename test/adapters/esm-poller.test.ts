/**
 * The test stand-in for Lambda's SQS event-source mapping behaves as the ESM
 * does against the SQS emulator: Lambda-shaped events, partial batch
 * responses, redelivery after the visibility timeout, FIFO group blocking,
 * dead-lettering after maxReceiveCount.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  EsmPoller,
  type EsmPollerOptions,
  InvocationKilledError,
} from '../helpers/esm-poller.js';
import {
  createSqsQueues,
  drainQueue,
  queueCounts,
  type SqsTestQueues,
} from '../helpers/sqs-queues.js';

const WAIT = { timeout: 20_000, interval: 50 };

/** A promise the test settles by hand. */
const deferred = () => {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

describe('EsmPoller', () => {
  let queues: SqsTestQueues;
  const pollers: EsmPoller[] = [];

  beforeEach(async () => {
    queues = await createSqsQueues({
      visibilityTimeoutSeconds: 1,
      maxReceiveCount: 2,
    });
  });
  afterEach(async () => {
    for (const p of pollers.splice(0)) {
      p.kill();
      await p.stop();
    }
    await queues.destroy();
  });

  const start = async (
    options: Omit<EsmPollerOptions, 'client'>
  ): Promise<EsmPoller> => {
    const poller = await EsmPoller.start({ client: queues.client, ...options });
    pollers.push(poller);
    return poller;
  };
  const sendFifo = (body: string, group: string) =>
    queues.client.send(
      new SendMessageCommand({
        QueueUrl: queues.work.url,
        MessageBody: body,
        MessageGroupId: group,
        MessageDeduplicationId: `${body}-${Math.random()}`,
      })
    );
  const sendStandard = (body: string) =>
    queues.client.send(
      new SendMessageCommand({ QueueUrl: queues.delay.url, MessageBody: body })
    );
  const bodies = (event: { records: { body: string }[] }) =>
    event.records.map((r) => r.body).sort();

  it('invokes with a Lambda-shaped batch and deletes it after success', async () => {
    // Prepare
    for (const key of ['c/ns/a', 'c/ns/b', 'c/ns/c']) await sendFifo(key, key);
    const events: SQSEvent[] = [];
    // Act
    const poller = await start({
      queueUrl: queues.work.url,
      handler: async (event) => {
        events.push(event);
      },
    });
    await vi.waitFor(() => expect(poller.invocations).toHaveLength(1), WAIT);
    // Assess
    expect(events[0]?.Records.map((r) => r.body).sort()).toEqual([
      'c/ns/a',
      'c/ns/b',
      'c/ns/c',
    ]);
    expect(events[0]?.Records[0]).toEqual({
      messageId: expect.any(String),
      receiptHandle: expect.any(String),
      body: expect.any(String),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: expect.stringMatching(/^\d+$/),
        SenderId: expect.any(String),
        ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d+$/),
        SequenceNumber: expect.any(String),
        MessageGroupId: events[0]?.Records[0]?.body,
        MessageDeduplicationId: expect.any(String),
      },
      messageAttributes: {},
      md5OfBody: expect.stringMatching(/^[0-9a-f]{32}$/),
      eventSource: 'aws:sqs',
      eventSourceARN: queues.work.arn,
      awsRegion: 'us-east-1',
    });
    expect(poller.invocations[0]?.outcome).toBe('succeeded');
    expect(await queueCounts(queues.client, queues.work.url)).toEqual({
      visible: 0,
      inFlight: 0,
      delayed: 0,
    });
  });

  it('omits the FIFO attributes on records of a standard queue', async () => {
    // Prepare
    await sendStandard('timer');
    const events: SQSEvent[] = [];
    // Act
    const poller = await start({
      queueUrl: queues.delay.url,
      handler: async (event) => {
        events.push(event);
      },
    });
    await vi.waitFor(() => expect(poller.invocations).toHaveLength(1), WAIT);
    // Assess
    expect(Object.keys(events[0]?.Records[0]?.attributes ?? {}).sort()).toEqual(
      [
        'ApproximateFirstReceiveTimestamp',
        'ApproximateReceiveCount',
        'SenderId',
        'SentTimestamp',
      ]
    );
  });

  it('deletes every record but the reported failures, which come back', async () => {
    // Prepare
    for (const body of ['a', 'b', 'c']) await sendStandard(body);
    // Act
    const poller = await start({
      queueUrl: queues.delay.url,
      handler: async (event) => ({
        batchItemFailures: event.Records.filter(
          (r) => r.body === 'b' && r.attributes.ApproximateReceiveCount === '1'
        ).map((r) => ({ itemIdentifier: r.messageId })),
      }),
    });
    await vi.waitFor(() => expect(poller.invocations).toHaveLength(2), WAIT);
    // Assess
    const [first, second] = poller.invocations;
    expect(first?.outcome).toBe('partial');
    expect(first && bodies(first)).toEqual(['a', 'b', 'c']);
    expect(second?.records.map((r) => r.body)).toEqual(['b']);
    expect(second?.records[0]?.attributes.ApproximateReceiveCount).toBe('2');
    expect(first?.retainedIds).toEqual([second?.records[0]?.messageId]);
  });

  it('leaves the whole batch when the handler throws', async () => {
    // Prepare
    for (const body of ['a', 'b']) await sendStandard(body);
    let calls = 0;
    // Act
    const poller = await start({
      queueUrl: queues.delay.url,
      handler: async () => {
        calls += 1;
        if (calls === 1) throw new Error('sync failed');
      },
    });
    await vi.waitFor(() => expect(poller.invocations).toHaveLength(2), WAIT);
    // Assess
    const [first, second] = poller.invocations;
    expect(first?.outcome).toBe('failed');
    expect(first?.error?.message).toBe('sync failed');
    expect(second && bodies(second)).toEqual(['a', 'b']);
    expect(
      second?.records.map((r) => r.attributes.ApproximateReceiveCount)
    ).toEqual(['2', '2']);
    expect(second?.outcome).toBe('succeeded');
  });

  it('counts a response naming a message not in the batch as a full failure', async () => {
    // Prepare
    await sendStandard('a');
    let calls = 0;
    // Act
    const poller = await start({
      queueUrl: queues.delay.url,
      handler: async () => {
        calls += 1;
        return calls === 1
          ? { batchItemFailures: [{ itemIdentifier: 'not-in-batch' }] }
          : { batchItemFailures: [] };
      },
    });
    await vi.waitFor(() => expect(poller.invocations).toHaveLength(2), WAIT);
    // Assess
    expect(poller.invocations.map((i) => i.outcome)).toEqual([
      'failed',
      'succeeded',
    ]);
  });

  it('redelivers a killed invocation after the visibility timeout with ApproximateReceiveCount 2', async () => {
    // Prepare
    await sendFifo('c/ns/a', 'c/ns/a');
    const started = deferred();
    const never = deferred();
    let calls = 0;
    const poller = await start({
      queueUrl: queues.work.url,
      handler: async () => {
        calls += 1;
        if (calls === 1) {
          started.resolve();
          await never.promise;
        }
      },
    });
    await started.promise;
    // Act
    poller.kill();
    await vi.waitFor(() => expect(poller.invocations).toHaveLength(2), WAIT);
    // Assess
    const [first, second] = poller.invocations;
    expect(first?.outcome).toBe('killed');
    expect(second?.records[0]?.attributes.ApproximateReceiveCount).toBe('2');
    expect(second?.outcome).toBe('succeeded');
  });

  it('records a handler that throws InvocationKilledError as killed and leaves its batch', async () => {
    // Prepare
    await sendStandard('a');
    let calls = 0;
    // Act
    const poller = await start({
      queueUrl: queues.delay.url,
      handler: async () => {
        calls += 1;
        if (calls === 1) throw new InvocationKilledError();
      },
    });
    await vi.waitFor(() => expect(poller.invocations).toHaveLength(2), WAIT);
    // Assess
    expect(poller.invocations.map((i) => i.outcome)).toEqual([
      'killed',
      'succeeded',
    ]);
  });

  it('holds back a FIFO group while one of its messages is in flight', async () => {
    // Prepare
    await sendFifo('A1', 'A');
    await sendFifo('A2', 'A');
    await sendFifo('B1', 'B');
    const log: string[] = [];
    const releaseA1 = deferred();
    const poller = await start({
      queueUrl: queues.work.url,
      batchSize: 1,
      concurrency: 2,
      visibilityTimeoutSeconds: 30,
      handler: async (event) => {
        for (const r of event.Records) {
          log.push(`${r.body} start`);
          if (r.body === 'A1') await releaseA1.promise;
          log.push(`${r.body} done`);
        }
      },
    });
    await vi.waitFor(() => expect(log).toContain('B1 done'), WAIT);
    // A free loop polls twice more while A1 is in flight.
    const empty = poller.stats.emptyReceives;
    await vi.waitFor(
      () => expect(poller.stats.emptyReceives).toBeGreaterThan(empty + 1),
      WAIT
    );
    // Act
    const whileA1InFlight = [...log];
    releaseA1.resolve();
    await vi.waitFor(() => expect(log).toContain('A2 done'), WAIT);
    // Assess
    expect(whileA1InFlight).not.toContain('A2 start');
    expect(log.indexOf('A2 start')).toBeGreaterThan(log.indexOf('A1 done'));
  });

  it('moves a message to the dead-letter queue after maxReceiveCount failures', async () => {
    // Prepare
    await sendFifo('c/ns/doomed', 'c/ns/doomed');
    // Act
    const poller = await start({
      queueUrl: queues.work.url,
      handler: async () => {
        throw new Error('always fails');
      },
    });
    const dead = await vi.waitFor(async () => {
      const messages = await drainQueue(queues.client, queues.workDlq.url, {
        waitTimeSeconds: 0,
      });
      expect(messages).toHaveLength(1);
      return messages;
    }, WAIT);
    // Assess
    expect(dead[0]?.Body).toBe('c/ns/doomed');
    expect(poller.invocations.map((i) => i.outcome)).toEqual([
      'failed',
      'failed',
    ]);
  });
});
