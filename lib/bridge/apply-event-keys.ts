/**
 * Carries out what an event handler decided (`EventKeys`), in upstream's
 * order: expectations change before a key is queued, so the sync it wakes
 * sees them. Shared by every bridge.
 */
import type {
  ExpectationsStore,
  SeenVersion,
  WorkQueue,
} from '../ports/index.js';
import type { EventKeys } from '../reconcile/event-keys/index.js';

/** Errors of failed writes here, which must be retried, never skipped. */
const writeFailures = new WeakSet<object>();

/** Returns whether `e` came from a failed write of `applyEventKeys`. */
export const isWriteFailure = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && writeFailures.has(e);

/**
 * Applies expectation changes, then queues the keys, each with the version
 * of the event that caused it (`seen`), so that their syncs read at least
 * that fresh. (Delayed keys always come with an immediate add of the same
 * key, which carries it.)
 */
export const applyEventKeys = async (
  out: EventKeys,
  deps: { expectations: ExpectationsStore; queue: WorkQueue },
  seen?: SeenVersion
): Promise<void> => {
  try {
    await writeEventKeys(out, deps, seen);
  } catch (e) {
    if (typeof e === 'object' && e !== null) writeFailures.add(e);
    throw e;
  }
};

const writeEventKeys = async (
  out: EventKeys,
  deps: { expectations: ExpectationsStore; queue: WorkQueue },
  seen?: SeenVersion
): Promise<void> => {
  for (const key of out.dropExpectations) {
    await deps.expectations.deleteExpectations(key);
  }
  for (const { key, observed } of out.expectations) {
    if (observed === 'creation') await deps.expectations.creationObserved(key);
    else await deps.expectations.deletionObserved(key);
  }
  for (const key of out.keys) await deps.queue.add(key, seen);
  for (const { key, afterMs } of out.delayedKeys) {
    await deps.queue.addAfter(key, afterMs);
  }
};

/**
 * Queues each of `keys` with `add`, one after another; a failed key does not
 * stop the rest (an unfence's resync must reach every DaemonSet it can), and
 * the first failure is thrown once all were tried.
 */
export const queueEach = async (
  keys: Iterable<string>,
  add: (key: string) => Promise<void>
): Promise<void> => {
  const failed: unknown[] = [];
  for (const key of keys) await add(key).catch((e: unknown) => failed.push(e));
  if (failed.length > 0) throw failed[0];
};
