/** The real clock. */
import type { Clock } from '../ports/index.js';

/** Returns wall time from `Date.now()`. */
export const systemClock: Clock = { now: () => Date.now() };
