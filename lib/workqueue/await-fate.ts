/**
 * Waiting on another sender's unsent record — a dirty mark or a timer it
 * wrote but has not yet confirmed sent. A live sender confirms within a
 * send's time; a dead one's record stops blocking after a few seconds
 * (UNSENT_MARK_MS, UNSENT_TIMER_MS), so a bounded poll decides either way.
 */

import { sleep } from '../sleep.js';

/** How often, and how many times, a waiting add reads the record again. */
const FATE_POLL_MS = 100;
const FATE_POLLS = 40;

/**
 * Reads `fate` every FATE_POLL_MS until it is no longer 'pending'; returns
 * 'pending' if it still is after FATE_POLLS reads.
 */
export const awaitFate = async <Fate extends string>(
  fate: () => Promise<Fate | 'pending'>
): Promise<Fate | 'pending'> => {
  for (let poll = 0; poll < FATE_POLLS; poll++) {
    await sleep(FATE_POLL_MS);
    const decided = await fate();
    if (decided !== 'pending') return decided;
  }
  return 'pending';
};
