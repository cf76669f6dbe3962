/** The real clock. */
import type { Clock } from '../../ports.js';

/** Returns wall time from `Date.now()`. */
export const systemClock: Clock = { now: () => Date.now() };
