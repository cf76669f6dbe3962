/**
 * The delay forwarder's core: client-go's delaying queue (`AddAfter`) built
 * from a standard SQS "delay" queue and the timer marks of WorkQueueMarks.
 *
 * The work queue is FIFO, and FIFO queues take no per-message delay; holding
 * the current message invisible instead would block the key's group, so an
 * event arriving during a 15-minute backoff would wait 15 minutes where
 * client-go syncs at once. So a delayed add is a timer message on a standard
 * queue, which supports `DelaySeconds` up to 900 s. When it comes due, the
 * forwarder adds the key to the work queue, unless an earlier timer of the
 * key replaced it (client-go `waitingForQueue`: the earliest ready time wins).
 *
 * Assumptions / Invariants:
 * - A timer message is `{"key","dueAtMs","token"}`; `token` names the armed
 *   timer in WorkQueueMarks. A message whose timer was replaced by one due no
 *   later and confirmed sent is dropped (that one fires); one replaced by a
 *   later timer (its own looked unsent: it was armed long ago and never
 *   confirmed), or by one whose message is not known to be out (abandoned
 *   after a failed send, or its sender died), still fires, so a replacement
 *   never postpones or loses a wake-up.
 * - Delays beyond 900 s are chained: a message delivered while its due time
 *   is still more than TIMER_SLACK_MS away is sent again with the rest.
 * - Delivery is at least once: firing adds the key before it disarms the
 *   timer, so a crash in between re-adds (coalesced) rather than losing it;
 *   a due message delivered again always adds (its first attempt may have
 *   died holding the key's dirty mark unsent), even when superseded.
 */

import type {
  Clock,
  DelayQueue,
  WorkQueue,
  WorkQueueMarks,
} from '../ports/index.js';
import {
  delaySecondsFor,
  formatTimerMessage,
  parseTimerMessage,
  TIMER_SLACK_MS,
  type TimerMessage,
} from './timer-message.js';

/** What firing a timer needs. */
export interface FireTimerDeps {
  delayQueue: DelayQueue;
  workQueue: Pick<WorkQueue, 'add'>;
  marks: Pick<WorkQueueMarks, 'armedTimer' | 'disarmTimer'>;
  clock: Clock;
}

/**
 * How a timer message ended: the key was added, the timer was sent on
 * (chained), or it was dropped because a newer timer replaced it.
 */
export type TimerOutcome = 'fired' | 'rescheduled' | 'superseded';

/**
 * Handles one delay-queue message and returns how it ended: drops it when its
 * timer was replaced, sends it on when it is still more than TIMER_SLACK_MS
 * early, and otherwise adds the key to the work queue, then disarms the
 * timer. Throws PoisonMessageError for a malformed body; any other error
 * means "deliver the message again".
 *
 * @example
 * const outcome = await fireTimer(record.body, {
 *   delayQueue, workQueue, marks, clock,
 * });
 */
export const fireTimer = async (
  body: string,
  deps: FireTimerDeps,
  redelivered = false
): Promise<TimerOutcome> =>
  fireParsedTimer(parseTimerMessage(body), deps, redelivered);

/** fireTimer for a message already parsed (the caller logs its fields). */
export const fireParsedTimer = async (
  timer: TimerMessage,
  deps: FireTimerDeps,
  redelivered = false
): Promise<TimerOutcome> => {
  // Checked first, so a replaced timer also stops being chained: a
  // superseded 1-hour timer costs one message, not four.
  const armed = await deps.marks.armedTimer(timer.key);
  // Only a replacement whose message is out supersedes: one unsent may
  // never be sent (its sender failed or died).
  const superseded =
    armed === undefined ||
    (armed.token !== timer.token &&
      armed.dueAtMs <= timer.dueAtMs &&
      armed.unsentSinceMs === undefined);
  const remainingMs = timer.dueAtMs - deps.clock.now();
  const due = remainingMs <= TIMER_SLACK_MS;
  // A due timer delivered again adds its key even when superseded: its
  // first attempt may have died between marking the key dirty and sending
  // (the mark then swallows other adds for a while — the timer that
  // replaced this one included — and this retry is what sends).
  if (superseded && !(redelivered && due)) return 'superseded';
  if (!due) {
    await deps.delayQueue.send(
      formatTimerMessage(timer),
      delaySecondsFor(remainingMs)
    );
    return 'rescheduled';
  }
  // Add before disarming: a crash in between re-delivers this message, which
  // adds again (coalesced by the dirty mark). The reverse order could lose it.
  await deps.workQueue.add(timer.key);
  // Only its own timer: a later one replacing it still has to fire.
  if (armed?.token === timer.token) {
    await deps.marks.disarmTimer(timer.key, timer.token);
  }
  return 'fired';
};
