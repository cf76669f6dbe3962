/**
 * The runtime's queues on the SQS emulator, under unique names: the FIFO work
 * queue with its FIFO dead-letter queue, and the standard delay queue with
 * its own (infra/resources mirrors this shape).
 */
import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { inject } from 'vitest';

/** Returns an SQS client for the emulator (dummy credentials). */
export const sqsTestClient = (
  endpoint: string = inject('sqsEndpoint')
): SQSClient =>
  new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });

/** One queue's URL and ARN. */
export interface TestQueue {
  url: string;
  arn: string;
}

/** The work and delay queues of one test, with their dead-letter queues. */
export interface SqsTestQueues {
  client: SQSClient;
  work: TestQueue;
  workDlq: TestQueue;
  delay: TestQueue;
  delayDlq: TestQueue;
  /** Deletes the queues and destroys the client. */
  destroy(): Promise<void>;
}

/** Options of createSqsQueues. */
export interface SqsQueuesOptions {
  endpoint?: string;
  /** Of both main queues. Default 30 s. */
  visibilityTimeoutSeconds?: number;
  /** Receives before a message moves to its DLQ. Default 5 (AWS's advice). */
  maxReceiveCount?: number;
}

const createQueue = async (
  client: SQSClient,
  name: string,
  attributes: Record<string, string>
): Promise<TestQueue> => {
  const { QueueUrl: url } = await client.send(
    new CreateQueueCommand({ QueueName: name, Attributes: attributes })
  );
  if (!url) throw new Error(`queue ${name} was not created`);
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['QueueArn'],
    })
  );
  const arn = Attributes?.QueueArn;
  if (!arn) throw new Error(`queue ${name} has no QueueArn`);
  return { url, arn };
};

/** Returns freshly created work and delay queues with their DLQs. */
export const createSqsQueues = async ({
  endpoint,
  visibilityTimeoutSeconds = 30,
  maxReceiveCount = 5,
}: SqsQueuesOptions = {}): Promise<SqsTestQueues> => {
  const client = sqsTestClient(endpoint);
  const base = `dsr-${randomUUID().slice(0, 8)}`;
  const fifo = { FifoQueue: 'true', ContentBasedDeduplication: 'false' };
  const visibility = { VisibilityTimeout: String(visibilityTimeoutSeconds) };
  const redrive = (dlq: TestQueue) => ({
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: dlq.arn,
      maxReceiveCount,
    }),
  });
  const workDlq = await createQueue(client, `${base}-work-dlq.fifo`, fifo);
  const work = await createQueue(client, `${base}-work.fifo`, {
    ...fifo,
    ...visibility,
    ...redrive(workDlq),
  });
  const delayDlq = await createQueue(client, `${base}-delay-dlq`, {});
  const delay = await createQueue(client, `${base}-delay`, {
    ...visibility,
    ...redrive(delayDlq),
  });
  return {
    client,
    work,
    workDlq,
    delay,
    delayDlq,
    destroy: async () => {
      for (const q of [work, workDlq, delay, delayDlq]) {
        await client.send(new DeleteQueueCommand({ QueueUrl: q.url }));
      }
      client.destroy();
    },
  };
};

/**
 * Returns every message that becomes visible on the queue within
 * `waitTimeSeconds` of the last one, deleting each batch (so a FIFO group
 * hands out its next message).
 */
export const drainQueue = async (
  client: SQSClient,
  queueUrl: string,
  { waitTimeSeconds = 1 }: { waitTimeSeconds?: number } = {}
): Promise<Message[]> => {
  const all: Message[] = [];
  for (;;) {
    const { Messages = [] } = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: waitTimeSeconds,
        MessageSystemAttributeNames: ['All'],
      })
    );
    if (Messages.length === 0) return all;
    all.push(...Messages);
    await client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Messages.map((m, i) => ({
          Id: `d${i}`,
          ReceiptHandle: m.ReceiptHandle,
        })),
      })
    );
  }
};

/** Returns the queue's approximate counts (visible, in flight, delayed). */
export const queueCounts = async (
  client: SQSClient,
  queueUrl: string
): Promise<{ visible: number; inFlight: number; delayed: number }> => {
  const { Attributes = {} } = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    })
  );
  return {
    visible: Number(Attributes.ApproximateNumberOfMessages ?? 0),
    inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
    delayed: Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0),
  };
};
