/**
 * The timer message: what the delay queue carries for one delayed add
 * (client-go `AddAfter`), its one format, and the delay arithmetic of SQS.
 * Shared by the timer forwarder and the SQS adapters.
 */
import { PoisonMessageError, TerminalError } from '../errors.js';
import { parseDaemonSetKey } from '../keys.js';

/** SQS's largest `DelaySeconds` (15 minutes); longer delays are chained. */
export const MAX_DELAY_SECONDS = 900;

/**
 * How early a timer may fire: SQS delays are whole seconds, and client-go's
 * first retries (5–640 ms) are shorter than that, so anything due within one
 * second is treated as due now.
 */
export const TIMER_SLACK_MS = 1_000;

/**
 * How long an armed timer whose message was never confirmed sent still
 * blocks a later one: the writer may have died between arming and sending.
 * Well above an SQS send; an add it blocks waits it out (arm-for-send.ts).
 * It must stay below the redelivery of the sync that asked for the timer
 * under any visibility timeout (the campaign's is 6 s): a longer one would
 * refuse that redelivery's requeue, and the key would never be woken.
 */
export const UNSENT_TIMER_MS = 3_000;

/** One delayed add, as the delay queue carries it. */
export interface TimerMessage {
  /** The work-queue key, `cluster/namespace/name`. */
  key: string;
  /** When the key is due, in ms since the epoch. */
  dueAtMs: number;
  /** The armed timer this message stands for (WorkQueueMarks.armTimer). */
  token: string;
}

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
