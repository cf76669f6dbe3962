/**
 * Leases on received work-queue messages against the SQS emulator: a
 * renewal holds a message for as long as its invocation may run, measured
 * from the renewal, never shorter than the queue's own visibility timeout;
 * a message received again meanwhile (or deleted) is no longer held.
 */
import {
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { SqsMessageLeases } from '#lib/adapters/sqs/sqs-message-leases.js';
import { SqsQueueError } from '#lib/adapters/sqs/sqs-queue-error.js';
import { createSqsQueues, type SqsTestQueues } from '../helpers/sqs-queues.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('SqsMessageLeases', () => {
  let queues: SqsTestQueues | undefined;
  afterEach(async () => {
    await queues?.destroy();
    queues = undefined;
  });

  /** Creates the queues, sends one message and receives it. */
  const received = async (visibilityTimeoutSeconds: number) => {
    queues = await createSqsQueues({ visibilityTimeoutSeconds });
    const { client, work } = queues;
    await client.send(
      new SendMessageCommand({
        QueueUrl: work.url,
        MessageBody: 'c/ns/agent',
        MessageGroupId: 'c/ns/agent',
        MessageDeduplicationId: 'd1',
      })
    );
    const message = await receiveOne(queues);
    if (message === undefined) throw new Error('nothing received');
    return {
      client,
      leases: new SqsMessageLeases({ client, queueUrl: work.url }),
      message,
    };
  };

  const receiveOne = async (q: SqsTestQueues): Promise<Message | undefined> => {
    const out = await q.client.send(
      new ReceiveMessageCommand({ QueueUrl: q.work.url, WaitTimeSeconds: 0 })
    );
    return out.Messages?.[0];
  };

  const asReceived = (m: Message) => ({
    messageId: m.MessageId ?? '',
    receiptHandle: m.ReceiptHandle ?? '',
  });

  it('one-daemon-pod-per-node: holds a message for as long as its invocation may run, counted from the renewal, past the visibility timeout of its receive', async () => {
    // Prepare: the receive's own lease ends after 1 s.
    const { leases, message } = await received(1);
    // Act: an invocation that may still run 3 s.
    const held = await leases.hold([asReceived(message)], 3_000);
    // Assess: still held well after the receive's lease ended, then back.
    expect([...held]).toEqual([message.MessageId]);
    await sleep(2_000);
    expect(await receiveOne(queues as SqsTestQueues)).toBeUndefined();
    await sleep(2_500);
    expect((await receiveOne(queues as SqsTestQueues))?.MessageId).toBe(
      message.MessageId
    );
  });

  it('never holds a message for less than the queue’s visibility timeout (a record reported failed returns no sooner than before)', async () => {
    // Prepare
    const { leases, message } = await received(3);
    // Act: an invocation with almost nothing left.
    await leases.hold([asReceived(message)], 0);
    // Assess: not back after the margin alone (1 s) would have ended.
    await sleep(1_800);
    expect(await receiveOne(queues as SqsTestQueues)).toBeUndefined();
  });

  it('one-daemon-pod-per-node: does not hold a message received again after its lease ran out (a batch that waited), nor one deleted', async () => {
    // Prepare: the message's lease runs out and it is received again.
    const { client, leases, message } = await received(1);
    await sleep(1_500);
    const again = await receiveOne(queues as SqsTestQueues);
    expect(again?.MessageId).toBe(message.MessageId);
    // Act
    const late = await leases.hold([asReceived(message)], 3_000);
    const current = await leases.hold([asReceived(again as Message)], 3_000);
    await client.send(
      new DeleteMessageCommand({
        QueueUrl: queues?.work.url,
        ReceiptHandle: again?.ReceiptHandle,
      })
    );
    const deleted = await leases.hold([asReceived(again as Message)], 3_000);
    // Assess
    expect(late.size).toBe(0);
    expect([...current]).toEqual([message.MessageId]);
    expect(deleted.size).toBe(0);
  });

  it('throws SqsQueueError when the queue cannot be reached, and asks again next time', async () => {
    // Prepare
    const { client, message } = await received(5);
    const leases = new SqsMessageLeases({
      client,
      queueUrl: `${queues?.work.url}-missing`,
    });
    // Act / Assess
    await expect(leases.hold([asReceived(message)], 1_000)).rejects.toThrow(
      SqsQueueError
    );
    await expect(leases.hold([asReceived(message)], 1_000)).rejects.toThrow(
      SqsQueueError
    );
  });
});
