/**
 * Freezes an object graph, so that a sync that changed an object it read
 * from a shared cache would throw (modules run in strict mode) instead of
 * quietly corrupting what the next sync reads.
 */

/** Freezes `value` and everything it holds; returns it. */
export const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
};
