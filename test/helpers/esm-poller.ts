/**
 * A stand-in for Lambda's SQS event-source mapping (ESM), for tests against
 * the SQS emulator: poll loops receive up to `batchSize` messages, build an
 * SQSEvent shaped exactly like Lambda's, invoke the handler and settle the
 * batch the way the ESM does with `ReportBatchItemFailures`
 * (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html):
 * - the handler throws or rejects (or is killed): every message stays and
 *   reappears after the queue's visibility timeout;
 * - it returns nothing, or an empty / null `batchItemFailures`: all are
 *   deleted;
 * - it lists `batchItemFailures[].itemIdentifier`s: all others are deleted;
 * - the response is malformed (an empty or null identifier, an identifier
 *   not in the batch, a non-object): the whole batch counts as failed.
 */
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { toError } from '#lib/errors.js';
import { lambdaContext } from './lambda-context.js';
import { regionOfArn, toSqsRecord } from './sqs-record.js';

/** A Lambda handler of SQS events (plain async function or middy chain). */
export type SqsEventHandler = (
  event: SQSEvent,
  context: Context
) => Promise<unknown>;

/**
 * Thrown by a handler to simulate the Lambda runtime dying at that point
 * (out of memory, timeout): the batch is left in flight like any failure,
 * and the invocation is recorded as `killed`.
 */
export class InvocationKilledError extends Error {
  constructor(message = 'invocation killed') {
    super(message);
    this.name = 'InvocationKilledError';
  }
}

/** How one invocation ended, for assertions. */
export interface Invocation {
  records: SQSRecord[];
  outcome: 'succeeded' | 'partial' | 'failed' | 'killed';
  /** Message IDs left on the queue (all of them unless partial/succeeded). */
  retainedIds: string[];
  error?: Error;
}

/** What an EsmPoller is built from. */
export interface EsmPollerOptions {
  client: SQSClient;
  queueUrl: string;
  handler: SqsEventHandler;
  /** Messages per invocation, 1–10 (Lambda's FIFO maximum). Default 10. */
  batchSize?: number;
  /** Parallel poll loops (Lambda's concurrent batches). Default 1. */
  concurrency?: number;
  /** When given, set on the queue at start (Lambda uses the queue's). */
  visibilityTimeoutSeconds?: number;
  /** Long-poll wait per receive; short, so stop() is quick. Default 1. */
  waitTimeSeconds?: number;
  /** The function timeout: a longer invocation is killed. Default 30 s. */
  functionTimeoutMs?: number;
  functionName?: string;
  /**
   * Milliseconds a received batch waits before its invocation starts (the
   * fault campaign's delayed delivery); the function's timeout starts after.
   */
  deliveryDelayMs?: () => number;
}

interface Running {
  killed: boolean;
  kill: () => void;
}

/** Lambda's SQS event-source mapping, imitated by poll loops in-process. */
export class EsmPoller {
  /** Every finished invocation, in order of completion. */
  readonly invocations: Invocation[] = [];
  /** Receive calls made, and how many returned nothing. */
  readonly stats = { receives: 0, emptyReceives: 0, errors: [] as Error[] };
  readonly #options: Required<
    Omit<EsmPollerOptions, 'visibilityTimeoutSeconds'>
  >;
  readonly #queueArn: string;
  readonly #running = new Set<Running>();
  #loops: Promise<void>[] = [];
  #stopping = false;

  private constructor(options: EsmPollerOptions, queueArn: string) {
    this.#options = {
      batchSize: 10,
      concurrency: 1,
      waitTimeSeconds: 1,
      functionTimeoutMs: 30_000,
      functionName: 'test-function',
      deliveryDelayMs: () => 0,
      ...options,
    };
    this.#queueArn = queueArn;
  }

  /** Returns a poller that is already polling `queueUrl`. */
  static async start(options: EsmPollerOptions): Promise<EsmPoller> {
    const { client, queueUrl, visibilityTimeoutSeconds } = options;
    if (visibilityTimeoutSeconds !== undefined) {
      await client.send(
        new SetQueueAttributesCommand({
          QueueUrl: queueUrl,
          Attributes: { VisibilityTimeout: String(visibilityTimeoutSeconds) },
        })
      );
    }
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['QueueArn'],
      })
    );
    const arn = Attributes?.QueueArn;
    if (!arn) throw new Error(`queue ${queueUrl} has no QueueArn`);
    const poller = new EsmPoller(options, arn);
    const n = poller.#options.concurrency;
    poller.#loops = Array.from({ length: n }, () => poller.#poll());
    return poller;
  }

  /**
   * Abandons every invocation in flight, as if its sandbox died: its batch
   * stays on the queue whatever the handler does later.
   */
  kill(): void {
    for (const running of this.#running) running.kill();
  }

  /** Stops polling; waits for the current receives and invocations. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.all(this.#loops);
  }

  async #poll(): Promise<void> {
    const { client, queueUrl, batchSize, waitTimeSeconds } = this.#options;
    while (!this.#stopping) {
      let messages: Message[];
      try {
        const out = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: batchSize,
            WaitTimeSeconds: waitTimeSeconds,
            AttributeNames: ['All'],
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          })
        );
        messages = out.Messages ?? [];
      } catch (e) {
        this.stats.errors.push(toError(e));
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      this.stats.receives += 1;
      if (messages.length === 0) {
        this.stats.emptyReceives += 1;
        continue;
      }
      await this.#invoke(messages);
    }
  }

  async #invoke(messages: Message[]): Promise<void> {
    const delayMs = this.#options.deliveryDelayMs();
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    const records = messages.map((m) => toSqsRecord(m, this.#queueArn));
    const ids = records.map((r) => r.messageId);
    const { handler, functionName, functionTimeoutMs } = this.#options;
    let kill = () => {};
    const killed = new Promise<'killed'>((resolve) => {
      kill = () => resolve('killed');
    });
    const running: Running = {
      killed: false,
      kill: () => {
        running.killed = true;
        kill();
      },
    };
    this.#running.add(running);
    const timeout = setTimeout(running.kill, functionTimeoutMs);
    const context = lambdaContext({
      functionName,
      timeoutMs: functionTimeoutMs,
      region: regionOfArn(this.#queueArn),
    });
    // Through a promise, so a handler that throws synchronously fails the
    // invocation like a rejection does.
    const invocation = Promise.resolve().then(() =>
      handler({ Records: records }, context)
    );
    // An abandoned invocation may still reject later; nobody listens then.
    invocation.catch(() => {});
    let response: unknown;
    let error: Error | undefined;
    try {
      response = await Promise.race([invocation, killed]);
    } catch (e) {
      error = toError(e);
    } finally {
      clearTimeout(timeout);
      this.#running.delete(running);
    }
    if (running.killed || error instanceof InvocationKilledError) {
      this.#record({ records, outcome: 'killed', retainedIds: ids, error });
      return;
    }
    const failedIds = error ? undefined : failedItems(response, ids);
    if (failedIds === undefined) {
      error ??= new Error('malformed batch response');
      this.#record({ records, outcome: 'failed', retainedIds: ids, error });
      return;
    }
    const done = messages.filter((m) => !failedIds.includes(m.MessageId ?? ''));
    await this.#delete(done);
    const outcome = failedIds.length === 0 ? 'succeeded' : 'partial';
    this.#record({ records, outcome, retainedIds: failedIds });
  }

  #record(invocation: Invocation): void {
    this.invocations.push(invocation);
  }

  async #delete(messages: Message[]): Promise<void> {
    if (messages.length === 0) return;
    try {
      const out = await this.#options.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.#options.queueUrl,
          Entries: messages.map((m, i) => ({
            Id: `d${i}`,
            ReceiptHandle: m.ReceiptHandle,
          })),
        })
      );
      for (const f of out.Failed ?? []) {
        this.stats.errors.push(new Error(`delete ${f.Id}: ${f.Code}`));
      }
    } catch (e) {
      // As on AWS: the messages reappear and are processed again.
      this.stats.errors.push(toError(e));
    }
  }
}

/**
 * Returns the message IDs a batch response reports as failed, or undefined
 * when Lambda would count the whole batch as failed (a malformed response).
 */
const failedItems = (
  response: unknown,
  ids: readonly string[]
): string[] | undefined => {
  if (response === undefined || response === null) return [];
  if (typeof response !== 'object') return undefined;
  const failures = (response as { batchItemFailures?: unknown })
    .batchItemFailures;
  if (failures === undefined || failures === null) return [];
  if (!Array.isArray(failures)) return undefined;
  const failed: string[] = [];
  for (const f of failures) {
    const id = (f as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !ids.includes(id)) return undefined;
    failed.push(id);
  }
  return failed;
};
