/**
 * Carries out what an event handler decided (`EventKeys`), in upstream's
 * order: expectations change before a key is queued, so the sync it wakes
 * sees them. Shared by every bridge.
 */
import type { ExpectationsStore, WorkQueue } from '../ports/index.js';
import type { EventKeys } from '../reconcile/event-keys/index.js';

/** Applies expectation changes, then queues the keys. */
export const applyEventKeys = async (
  out: EventKeys,
  deps: { expectations: ExpectationsStore; queue: WorkQueue }
): Promise<void> => {
  for (const key of out.dropExpectations) {
    await deps.expectations.deleteExpectations(key);
  }
  for (const { key, observed } of out.expectations) {
    if (observed === 'creation') await deps.expectations.creationObserved(key);
    else await deps.expectations.deletionObserved(key);
  }
  for (const key of out.keys) await deps.queue.add(key);
  for (const { key, afterMs } of out.delayedKeys) {
    await deps.queue.addAfter(key, afterMs);
  }
};
