/** The delay queue of delayed adds (see lib/workqueue/fire-timers.ts) on SQS. */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DelayQueue } from '../../ports/index.js';
import { callSqs } from './sqs-queue-error.js';

/** What an SqsDelayQueue is built from. */
export interface SqsDelayQueueOptions {
  client: SQSClient;
  /** A standard queue: FIFO queues refuse per-message DelaySeconds. */
  queueUrl: string;
}

/** Sends timer messages to a standard SQS queue with `DelaySeconds`. */
export class SqsDelayQueue implements DelayQueue {
  readonly #client: SQSClient;
  readonly #queueUrl: string;

  constructor({ client, queueUrl }: SqsDelayQueueOptions) {
    this.#client = client;
    this.#queueUrl = queueUrl;
  }

  /** Sends `body`, invisible for `delaySeconds`; throws SqsQueueError. */
  async send(body: string, delaySeconds: number): Promise<void> {
    await callSqs(`send a timer with delay ${delaySeconds} s`, () =>
      this.#client.send(
        new SendMessageCommand({
          QueueUrl: this.#queueUrl,
          MessageBody: body,
          DelaySeconds: delaySeconds,
        })
      )
    );
  }
}
