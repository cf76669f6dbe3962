/**
 * Leases on received work-queue messages, as SQS visibility timeouts
 * renewed from the invocation's start (see the MessageLeases port).
 */
import {
  ChangeMessageVisibilityBatchCommand,
  GetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { MessageLeases, ReceivedMessage } from '../../ports/index.js';
import { callSqs } from './sqs-queue-error.js';

/** Beyond the invocation's remaining time: its last answer still has to reach the poller. */
export const LEASE_MARGIN_MS = 1_000;
/** SQS's ceiling on one visibility timeout. */
const MAX_VISIBILITY_SECONDS = 43_200;
/** SQS's batch limit. */
const BATCH = 10;

/** What an SqsMessageLeases is built from. */
export interface SqsMessageLeasesOptions {
  client: SQSClient;
  queueUrl: string;
}

/** Renews received messages' visibility with ChangeMessageVisibilityBatch. */
export class SqsMessageLeases implements MessageLeases {
  readonly #client: SQSClient;
  readonly #queueUrl: string;
  /** The queue's visibility timeout, read once per container. */
  #visibilitySeconds: Promise<number> | undefined;

  constructor({ client, queueUrl }: SqsMessageLeasesOptions) {
    this.#client = client;
    this.#queueUrl = queueUrl;
  }

  /** See MessageLeases.hold; throws SqsQueueError. */
  async hold(
    messages: readonly ReceivedMessage[],
    runsForMs: number
  ): Promise<ReadonlySet<string>> {
    const held = new Set<string>();
    if (messages.length === 0) return held;
    // Never shorter than the queue's own: a record reported failed comes
    // back no sooner than it did before the renewal.
    const seconds = Math.min(
      MAX_VISIBILITY_SECONDS,
      Math.max(
        await this.#queueVisibilitySeconds(),
        Math.ceil((runsForMs + LEASE_MARGIN_MS) / 1000)
      )
    );
    for (let i = 0; i < messages.length; i += BATCH) {
      const chunk = messages.slice(i, i + BATCH);
      const out = await callSqs(
        `hold ${chunk.length} message(s) for ${seconds} s`,
        () =>
          this.#client.send(
            new ChangeMessageVisibilityBatchCommand({
              QueueUrl: this.#queueUrl,
              Entries: chunk.map((m, j) => ({
                Id: `m${j}`,
                ReceiptHandle: m.receiptHandle,
                VisibilityTimeout: seconds,
              })),
            })
          )
      );
      // Failed entries (a stale receipt handle, a message in flight no
      // more) are not held, whatever the code.
      for (const s of out.Successful ?? []) {
        const m = chunk[Number(s.Id?.slice(1))];
        if (m) held.add(m.messageId);
      }
    }
    return held;
  }

  #queueVisibilitySeconds(): Promise<number> {
    this.#visibilitySeconds ??= callSqs('read the visibility timeout', () =>
      this.#client.send(
        new GetQueueAttributesCommand({
          QueueUrl: this.#queueUrl,
          AttributeNames: ['VisibilityTimeout'],
        })
      )
    ).then(
      (out) => Number(out.Attributes?.VisibilityTimeout ?? 0),
      (e: unknown) => {
        this.#visibilitySeconds = undefined;
        throw e;
      }
    );
    return this.#visibilitySeconds;
  }
}
