/** Resolves after `ms` of wall time (the global timer, so fake timers apply). */
export const sleep = (ms: number): Promise<void> =>
  new Promise<void>((resolve) => setTimeout(resolve, ms));
