/**
 * The timer an addAfter arms before it sends its delay message (client-go's
 * `waitingForQueue`: the earliest ready time wins), and what the add does
 * when another sender's earlier timer is armed but not yet confirmed sent:
 * that sender may have died between arming and sending. In campaign seed
 * 170896 a reconcile attempt requeuing its key past an open cluster breaker
 * armed a timer and was killed before the send; its redelivered message
 * asked for the same time, was refused by that timer, and the key was never
 * woken. So the add waits for the timer's fate: sent — it fires no later,
 * nothing to send; replaced, fired, abandoned, due, or unsent for
 * UNSENT_TIMER_MS — the add arms its own. A slow sender's message then
 * fires as well (fire-timers.ts lets a timer replaced by a later one, or
 * by one not confirmed sent, fire): one extra sync, never a lost one.
 */
import { ReconcilerError } from '../errors.js';
import type { ArmedTimer, Clock, WorkQueueMarks } from '../ports/index.js';
import { awaitFate } from './await-fate.js';
import { TIMER_SLACK_MS, UNSENT_TIMER_MS } from './timer-message.js';

/**
 * How many refusals in a row an add takes (after each, it waits at most
 * awaitFate's 4 s on an unsent timer) before it fails and is retried by its
 * caller.
 */
const TIMERS_WAITED_ON = 3;

/**
 * Arms the key's timer for `dueAtMs`; returns its token (the add must send
 * its message), or undefined when a timer whose message is out fires no
 * later.
 */
export const armForSend = async (
  marks: WorkQueueMarks,
  clock: Clock,
  key: string,
  dueAtMs: number
): Promise<string | undefined> => {
  for (let refused = 0; ; refused++) {
    const token = await marks.armTimer(key, dueAtMs);
    if (token !== undefined) return token;
    if (refused === TIMERS_WAITED_ON) {
      throw new ReconcilerError(
        `the timer of ${key} stayed unsent; the add is retried`
      );
    }
    const blocking = await marks.armedTimer(key);
    // Gone, abandoned or replaced by a later timer since the refusal: arm
    // again now.
    if (
      blocking === undefined ||
      blocking.abandoned === true ||
      blocking.dueAtMs > dueAtMs
    ) {
      continue;
    }
    if (blocking.unsentSinceMs === undefined) return undefined;
    const fate = await awaitFate(() => timerFate(marks, clock, key, blocking));
    if (fate === 'sent') return undefined;
  }
};

/**
 * Returns what became of another sender's unsent timer: its message was
 * sent, it no longer blocks (replaced, fired, due, or unsent for too long),
 * or still pending.
 */
const timerFate = async (
  marks: WorkQueueMarks,
  clock: Clock,
  key: string,
  waitedOn: ArmedTimer
): Promise<'sent' | 'gone' | 'pending'> => {
  const timer = await marks.armedTimer(key);
  if (timer?.token !== waitedOn.token || timer.abandoned) return 'gone';
  if (timer.unsentSinceMs === undefined) return 'sent';
  const now = clock.now();
  // Unsent too long, or due within the slack: a timer armed now replaces it
  // (the stores' STALE_TIMER_MS and UNSENT_TIMER_MS rules).
  return timer.unsentSinceMs < now - UNSENT_TIMER_MS ||
    timer.dueAtMs < now + TIMER_SLACK_MS
    ? 'gone'
    : 'pending';
};
