/**
 * The work queue on SQS, with client-go's guarantees (util/workqueue):
 * - per-key mutual exclusion: a FIFO queue with `MessageGroupId` = the key
 *   (a group with a message in flight delivers nothing else);
 * - stingy: adds coalesce on the key's dirty mark in WorkQueueMarks, so at
 *   most one message per key waits; the consumer clears the mark before it
 *   reads (WorkQueueLedger.beginSync), so an add during a sync queues one more
 *   message behind the in-flight one; an add waits for the fate of another
 *   sender's mark not yet confirmed sent (mark-for-send.ts);
 * - `addAfter`: a timer message on a standard delay queue (FIFO queues take
 *   no per-message delay), fired by lib/timers/fire-timers.ts.
 *
 * Every message gets a fresh random `MessageDeduplicationId`: SQS drops a
 * message whose ID it saw in the last 5 minutes, even after the first was
 * deleted, which would silently swallow a real change. Coalescing is the
 * dirty mark's job, not SQS's.
 */
import { randomUUID } from 'node:crypto';
import {
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { toError } from '../../errors.js';
import {
  delaySecondsFor,
  formatTimerMessage,
  TIMER_SLACK_MS,
} from '../../policy/timer-message.js';
import type {
  Clock,
  DelayQueue,
  SeenVersion,
  WorkQueue,
  WorkQueueMarks,
} from '../../ports/index.js';
import { markForSend } from './mark-for-send.js';
import { messageGroupIdFor } from './message-group.js';
import { callSqs, SqsQueueError } from './sqs-queue-error.js';

/** SQS's largest batch of SendMessageBatch. */
const MAX_BATCH_SIZE = 10;

/** What an SqsWorkQueue is built from. */
export interface SqsWorkQueueOptions {
  client: SQSClient;
  /** The FIFO work queue (body = key, group = key). */
  workQueueUrl: string;
  /** Where delayed adds go as timer messages (an SqsDelayQueue). */
  delayQueue: DelayQueue;
  marks: WorkQueueMarks;
  clock: Clock;
}

/** The producer side of the work queue on SQS FIFO plus a delay queue. */
export class SqsWorkQueue implements WorkQueue {
  readonly #client: SQSClient;
  readonly #workQueueUrl: string;
  readonly #delayQueue: DelayQueue;
  readonly #marks: WorkQueueMarks;
  readonly #clock: Clock;
  /**
   * Marks this process set but could neither send nor clear (DynamoDB was
   * failing too): its retry of the key re-uses the mark's id, so it sends
   * instead of coalescing into a mark that has no message.
   */
  readonly #unsentMarks = new Map<string, string>();

  constructor(options: SqsWorkQueueOptions) {
    this.#client = options.client;
    this.#workQueueUrl = options.workQueueUrl;
    this.#delayQueue = options.delayQueue;
    this.#marks = options.marks;
    this.#clock = options.clock;
  }

  /**
   * Sends `key` to the work queue unless it is already waiting. When the
   * send fails, the dirty mark is cleared again and an SqsQueueError is
   * thrown, so the caller's retry adds it anew (nothing is silently lost).
   */
  async add(key: string, seen?: SeenVersion): Promise<void> {
    const markId = this.#unsentMarks.get(key) ?? randomUUID();
    if (!(await this.#mark(key, seen, markId))) return;
    try {
      await callSqs(`send ${key} to the work queue`, () =>
        this.#client.send(
          new SendMessageCommand({
            QueueUrl: this.#workQueueUrl,
            MessageBody: key,
            MessageGroupId: messageGroupIdFor(key),
            MessageDeduplicationId: randomUUID(),
          })
        )
      );
    } catch (e) {
      throw await this.#undoMark(key, markId, toError(e));
    }
    await this.#confirm(key, markId);
  }

  /** markForSend, remembering a mark that may have landed unanswered. */
  async #mark(
    key: string,
    seen: SeenVersion | undefined,
    markId: string
  ): Promise<boolean> {
    try {
      return await markForSend(this.#marks, key, seen, markId);
    } catch (e) {
      // The mark may have landed with its answer lost: this add's retry must
      // be admitted by it, not swallowed (campaign seed 30180).
      this.#unsentMarks.set(key, markId);
      throw e;
    }
  }

  /**
   * Records that the mark's message went out (best effort: an unconfirmed
   * mark only stops blocking other adds after UNSENT_MARK_MS).
   */
  async #confirm(key: string, markId: string): Promise<void> {
    this.#unsentMarks.delete(key);
    await this.#marks.confirmMark(key, markId).catch(() => undefined);
  }

  async noteSeen(key: string, seen: SeenVersion): Promise<void> {
    await this.#marks.raiseSeen(key, seen);
  }

  /** Clears the key's dirty mark, then adds it (see WorkQueue.addAnew). */
  async addAnew(key: string): Promise<void> {
    await this.#marks.clearDirty(key);
    await this.add(key);
  }

  /**
   * Sends `key` after `delayMs` through the delay queue, unless an earlier
   * timer of the key is pending (the earliest ready time wins). Delays under
   * a second are added at once: SQS counts whole seconds, and client-go's
   * first retries are 5–640 ms.
   */
  async addAfter(key: string, delayMs: number): Promise<void> {
    // `!(>=)` also sends NaN the immediate way instead of arming a timer.
    if (!(delayMs >= TIMER_SLACK_MS)) {
      await this.add(key);
      return;
    }
    const dueAtMs = this.#clock.now() + delayMs;
    const token = await this.#marks.armTimer(key, dueAtMs);
    if (token === undefined) return;
    try {
      await this.#delayQueue.send(
        formatTimerMessage({ key, dueAtMs, token }),
        delaySecondsFor(delayMs)
      );
    } catch (e) {
      // An armed timer without a message would swallow every later
      // addAfter of the key; the caller's retry arms it anew.
      try {
        await this.#marks.disarmTimer(key, token);
      } catch (disarmError) {
        throw new AggregateError(
          [toError(e), toError(disarmError)],
          `send a timer for ${key} failed and its timer stayed armed`
        );
      }
      throw e;
    }
    // Best effort: an unconfirmed timer may be replaced by a later one after
    // UNSENT_TIMER_MS, and its message then still fires (fire-timers.ts),
    // so a failed confirmation costs at most one extra sync.
    await this.#marks.confirmTimer(key, token).catch(() => undefined);
  }

  /**
   * Adds many keys with SendMessageBatch (10 per call), coalescing like
   * `add`; throws an AggregateError of every key that could not be added
   * (their dirty marks are cleared again), after trying all of them.
   */
  async addBatch(keys: readonly string[]): Promise<void> {
    const unique = [...new Set(keys)];
    const markIds = new Map(
      unique.map((key) => [key, this.#unsentMarks.get(key) ?? randomUUID()])
    );
    const marked = await Promise.allSettled(
      unique.map((key) => this.#mark(key, undefined, markIds.get(key) ?? ''))
    );
    const errors: Error[] = [];
    const toSend: string[] = [];
    marked.forEach((result, i) => {
      const key = unique[i] as string;
      if (result.status === 'rejected') errors.push(toError(result.reason));
      else if (result.value) toSend.push(key);
    });
    const chunks: string[][] = [];
    for (let i = 0; i < toSend.length; i += MAX_BATCH_SIZE) {
      chunks.push(toSend.slice(i, i + MAX_BATCH_SIZE));
    }
    const failures = (
      await Promise.all(chunks.map((c) => this.#sendBatch(c)))
    ).flat();
    const failed = new Set(failures.map(([key]) => key));
    for (const [key, error] of failures) {
      errors.push(await this.#undoMark(key, markIds.get(key) ?? '', error));
    }
    await Promise.all(
      toSend
        .filter((key) => !failed.has(key))
        .map((key) => this.#confirm(key, markIds.get(key) ?? ''))
    );
    if (errors.length > 0) {
      throw new AggregateError(
        errors,
        `add ${errors.length} of ${unique.length} keys to the work queue`
      );
    }
  }

  /** Returns the keys of `keys` that SQS did not accept, with why. */
  async #sendBatch(keys: readonly string[]): Promise<[string, Error][]> {
    const operation = `send ${keys.length} keys to the work queue`;
    try {
      const result = await callSqs(operation, () =>
        this.#client.send(
          new SendMessageBatchCommand({
            QueueUrl: this.#workQueueUrl,
            Entries: keys.map((key, i) => ({
              Id: `k${i}`,
              MessageBody: key,
              MessageGroupId: messageGroupIdFor(key),
              MessageDeduplicationId: randomUUID(),
            })),
          })
        )
      );
      return (result.Failed ?? []).map((f) => {
        const key = keys[Number(f.Id?.slice(1))] ?? String(f.Id);
        const cause = new Error(`${f.Code}: ${f.Message ?? ''}`);
        return [
          key,
          new SqsQueueError(`send ${key} to the work queue`, { cause }),
        ];
      });
    } catch (e) {
      const error = toError(e);
      return keys.map((key) => [key, error]);
    }
  }

  /**
   * Clears the dirty mark set for a send that failed; returns the error to
   * throw (both errors when the mark cannot be cleared either).
   */
  async #undoMark(
    key: string,
    markId: string,
    sendError: Error
  ): Promise<Error> {
    try {
      await this.#marks.clearDirty(key);
      this.#unsentMarks.delete(key);
      return sendError;
    } catch (e) {
      this.#unsentMarks.set(key, markId);
      return new AggregateError(
        [sendError, toError(e)],
        `send ${key} to the work queue failed and its dirty mark stayed set`
      );
    }
  }
}
