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
 *   no per-message delay), fired by lib/workqueue/fire-timers.ts; an addAfter
 *   waits for the fate of another sender's earlier timer not yet confirmed
 *   sent (arm-for-send.ts).
 *
 * Every message gets a fresh random `MessageDeduplicationId`: SQS drops a
 * message whose ID it saw in the last 5 minutes, even after the first was
 * deleted, which would silently swallow a real change. Coalescing is the
 * dirty mark's job, not SQS's.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { toError } from '../../errors.js';
import type {
  Clock,
  DelayQueue,
  SeenVersion,
  WorkQueue,
  WorkQueueMarks,
} from '../../ports/index.js';
import { armForSend } from '../../workqueue/arm-for-send.js';
import { markForSend } from '../../workqueue/mark-for-send.js';
import {
  delaySecondsFor,
  formatTimerMessage,
  TIMER_SLACK_MS,
} from '../../workqueue/timer-message.js';
import { messageGroupIdFor } from './message-group.js';
import { callSqs } from './sqs-queue-error.js';

/** A send of this process's mark: `sent` settles true once SQS took it. */
interface OwnSend {
  markId: string;
  sent: Promise<boolean>;
  settle(sent: boolean): void;
}

const ownSend = (markId: string): OwnSend => {
  let settle: (sent: boolean) => void = () => undefined;
  const sent = new Promise<boolean>((resolve) => {
    settle = resolve;
  });
  return { markId, sent, settle };
};

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
  /**
   * This process's marks, by id, whose send is under way or done but not
   * confirmed:
   * an add of this process that finds one awaits its send, instead of
   * polling DynamoDB for it (a bridge's flush adds one key for many pod
   * events at once; a failed confirm must not stall the next add 3 s).
   */
  readonly #ownSends = new Map<string, OwnSend>();
  /** The mark id kept in #ownSends after its confirmation failed, by key. */
  readonly #unconfirmed = new Map<string, string>();

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
    // Registered before the mark is written: a concurrent add of this
    // process may find the mark as soon as it is.
    const own = ownSend(markId);
    this.#ownSends.set(markId, own);
    let marked = false;
    try {
      marked = await this.#mark(key, seen, markId);
    } finally {
      if (!marked) this.#dropOwnSend(own, false);
    }
    if (!marked) return;
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
      // Undone first, so an add that awaited this send marks anew at once.
      const error = await this.#undoMark(key, markId, toError(e));
      this.#dropOwnSend(own, false);
      throw error;
    }
    own.settle(true);
    await this.#confirm(key, own);
  }

  /** markForSend, remembering a mark that may have landed unanswered. */
  async #mark(
    key: string,
    seen: SeenVersion | undefined,
    markId: string
  ): Promise<boolean> {
    try {
      return await markForSend(
        this.#marks,
        key,
        seen,
        markId,
        (found) => this.#ownSends.get(found)?.sent
      );
    } catch (e) {
      // The mark may have landed with its answer lost: this add's retry must
      // be admitted by it, not swallowed.
      this.#unsentMarks.set(key, markId);
      throw e;
    }
  }

  /**
   * Records that the mark's message went out (best effort: an unconfirmed
   * mark only stops blocking other adds after UNSENT_MARK_MS).
   */
  async #confirm(key: string, own: OwnSend): Promise<void> {
    this.#unsentMarks.delete(key);
    try {
      await this.#marks.confirmMark(key, own.markId);
      this.#dropOwnSend(own, true);
    } catch {
      // Kept: this process's next add of the key coalesces into it. One
      // such mark per key.
      const older = this.#unconfirmed.get(key);
      if (older !== undefined) this.#ownSends.delete(older);
      this.#unconfirmed.set(key, own.markId);
    }
  }

  #dropOwnSend(own: OwnSend, sent: boolean): void {
    own.settle(sent);
    this.#ownSends.delete(own.markId);
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
    const token = await armForSend(this.#marks, this.#clock, key, dueAtMs);
    if (token === undefined) return;
    try {
      await this.#delayQueue.send(
        formatTimerMessage({ key, dueAtMs, token }),
        // Less any wait on another sender's timer.
        delaySecondsFor(dueAtMs - this.#clock.now())
      );
    } catch (e) {
      // An armed timer without a message would swallow every later
      // addAfter of the key, and a disarmed one would drop the message of
      // the timer it replaced; the caller's retry arms anew.
      try {
        await this.#marks.abandonTimer(key, token);
      } catch (abandonError) {
        throw new AggregateError(
          [toError(e), toError(abandonError)],
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
   * Clears the dirty mark set for a send that failed; returns the error to
   * throw (both errors when the mark cannot be cleared either).
   */
  async #undoMark(
    key: string,
    markId: string,
    sendError: Error
  ): Promise<Error> {
    try {
      await this.#marks.clearDirty(key, markId);
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
