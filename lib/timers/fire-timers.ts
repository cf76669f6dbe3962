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
 *   timer in WorkQueueMarks, and a message whose token is no longer armed is
 *   stale and dropped.
 * - Delays beyond 900 s are chained: a message delivered while its due time
 *   is still more than TIMER_SLACK_MS away is sent again with the rest.
 * - Delivery is at least once: firing adds the key before it disarms the
 *   timer, so a crash in between re-adds (coalesced) rather than losing it.
 */
import { PoisonMessageError, TerminalError } from '../errors.js';
import { parseDaemonSetKey } from '../keys.js';
import type { Clock, WorkQueue, WorkQueueMarks } from '../ports/index.js';

/** SQS's largest `DelaySeconds` (15 minutes); longer delays are chained. */
export const MAX_DELAY_SECONDS = 900;

/**
 * How early a timer may fire: SQS delays are whole seconds, and client-go's
 * first retries (5–640 ms) are shorter than that, so anything due within one
 * second is treated as due now.
 */
export const TIMER_SLACK_MS = 1_000;

/** One delayed add, as the delay queue carries it. */
export interface TimerMessage {
  /** The work-queue key, `cluster/namespace/name`. */
  key: string;
  /** When the key is due, in ms since the epoch. */
  dueAtMs: number;
  /** The armed timer this message stands for (WorkQueueMarks.armTimer). */
  token: string;
}

/** Sends timer messages with a delay (the SQS delay queue in production). */
export interface DelayQueue {
  /** Sends `body` so that it is delivered after `delaySeconds` (0–900). */
  send(body: string, delaySeconds: number): Promise<void>;
}

/** What firing a timer needs. */
export interface FireTimerDeps {
  delayQueue: DelayQueue;
  workQueue: Pick<WorkQueue, 'add'>;
  marks: Pick<WorkQueueMarks, 'isTimerArmed' | 'disarmTimer'>;
  clock: Clock;
}

/**
 * How a timer message ended: the key was added, the timer was sent on
 * (chained), or it was dropped because a newer timer replaced it.
 */
export type TimerOutcome = 'fired' | 'rescheduled' | 'superseded';

/**
 * Returns the `DelaySeconds` that delivers a message no earlier than
 * `remainingMs` from now, capped at MAX_DELAY_SECONDS.
 */
export const delaySecondsFor = (remainingMs: number): number =>
  Math.min(Math.max(Math.ceil(remainingMs / 1_000), 0), MAX_DELAY_SECONDS);

/** Returns the message body of a timer (the one format; see parse). */
export const formatTimerMessage = ({
  key,
  dueAtMs,
  token,
}: TimerMessage): string => JSON.stringify({ key, dueAtMs, token });

const poison = (body: string, problem: string, cause?: unknown) =>
  new PoisonMessageError(
    `malformed timer message ${JSON.stringify(body.slice(0, 200))}: ${problem}`,
    cause === undefined ? undefined : { cause }
  );

/**
 * Returns the timer a delay-queue message carries; a body that is not one is
 * a PoisonMessageError (retrying cannot fix it).
 */
export const parseTimerMessage = (body: string): TimerMessage => {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    throw poison(body, 'not JSON', e);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw poison(body, 'want a JSON object {"key","dueAtMs","token"}');
  }
  const { key, dueAtMs, token } = value as Record<string, unknown>;
  if (typeof key !== 'string') throw poison(body, 'key is not a string');
  try {
    parseDaemonSetKey(key);
  } catch (e) {
    if (e instanceof TerminalError) throw poison(body, e.message, e);
    throw e;
  }
  if (typeof dueAtMs !== 'number' || !Number.isFinite(dueAtMs)) {
    throw poison(body, 'dueAtMs is not a finite number');
  }
  if (typeof token !== 'string' || token === '') {
    throw poison(body, 'token is not a non-empty string');
  }
  return { key, dueAtMs, token };
};

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
  deps: FireTimerDeps
): Promise<TimerOutcome> => {
  const timer = parseTimerMessage(body);
  // Checked first, so a replaced timer also stops being chained: a
  // superseded 1-hour timer costs one message, not four.
  if (!(await deps.marks.isTimerArmed(timer.key, timer.token))) {
    return 'superseded';
  }
  const remainingMs = timer.dueAtMs - deps.clock.now();
  if (remainingMs > TIMER_SLACK_MS) {
    await deps.delayQueue.send(
      formatTimerMessage(timer),
      delaySecondsFor(remainingMs)
    );
    return 'rescheduled';
  }
  // Add before disarming: a crash in between re-delivers this message, which
  // adds again (coalesced by the dirty mark). The reverse order could lose it.
  await deps.workQueue.add(timer.key);
  await deps.marks.disarmTimer(timer.key, timer.token);
  return 'fired';
};
