/** The real clock, and the real wait. */
import type { Clock } from '../ports/index.js';

/** Returns wall time from `Date.now()`. */
export const systemClock: Clock = { now: () => Date.now() };

/** Resolves after `ms` of wall time (the global timer, so fake timers apply). */
export const sleep = (ms: number): Promise<void> =>
  new Promise<void>((resolve) => setTimeout(resolve, ms));
