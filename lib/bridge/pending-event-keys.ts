/**
 * The pod events' work, gathered for a moment and applied as one batch: a
 * burst of 250 creations becomes one `lowerObserved(key, …250 events)` and
 * one `add(key)` instead of 500 writes made one event at a time (what held
 * a 1,000-node create ~9 s after each burst). Upstream's informer handlers
 * also only lower expectations and mark keys dirty; the batch keeps the
 * order that matters: the version of each pod event that lowers a key's
 * expectations is noted for the key before the lowering lands (a sync that
 * finds them lowered then reads pods at least that fresh, as upstream's
 * informer holds a pod before its handler lowers them); every expectation
 * change of the batch lands before any of its keys is queued, and a drop
 * voids the lowerings it follows
 * (lowering an absent record is a no-op, so one that follows the drop may
 * run after it, as it would have). A write that succeeded is not repeated
 * when the batch is applied again after a failure, and each lowering
 * carries its events' versions, so a later bridge run that replays them
 * (from an older checkpoint) lowers nothing twice.
 */
import type {
  ExpectationsStore,
  ObservedPodEvent,
  SeenVersion,
  WorkQueue,
} from '../ports/index.js';
import type { EventKeys } from '../reconcile/event-keys/index.js';

/** Events gathered, and what applying them will write. */
export class PendingEventKeys {
  readonly #drops = new Set<string>();
  /** Each key's observed creates and deletes, with their events' versions. */
  readonly #lowers = new Map<string, ObservedPodEvent[]>();
  /** The newest version of the events whose lowerings are pending, per key. */
  readonly #noted = new Map<string, SeenVersion>();
  /** Keys to queue, each with the version of the last event that woke it. */
  readonly #adds = new Map<string, SeenVersion | undefined>();
  /** Pods to release, each with its own add (`key`, pod). */
  readonly #releases = new Map<string, { key: string; seen: SeenVersion }>();
  readonly #delayed = new Map<string, number>();

  /** Whether nothing is left to write. */
  get empty(): boolean {
    return (
      this.#drops.size +
        this.#noted.size +
        this.#lowers.size +
        this.#adds.size +
        this.#releases.size +
        this.#delayed.size ===
      0
    );
  }

  /** Merges one event's work (`seen`: the version of that event). */
  merge(out: EventKeys, seen?: SeenVersion): void {
    for (const key of out.dropExpectations) {
      this.#lowers.delete(key);
      this.#drops.add(key);
    }
    for (const { key, observed } of out.expectations) {
      const lower = this.#lowers.get(key) ?? [];
      lower.push(
        seen?.resourceVersion === undefined
          ? { observed }
          : { observed, resourceVersion: seen.resourceVersion }
      );
      this.#lowers.set(key, lower);
      if (seen !== undefined && seen.releasePod === undefined) {
        this.#noted.set(key, seen);
      }
    }
    for (const key of out.keys) {
      if (seen?.releasePod !== undefined) {
        this.#releases.set(`${key}\0${seen.releasePod}`, { key, seen });
      } else {
        // Events come in watch order: the last one's version is the newest
        // (an event without one keeps the version before it).
        this.#adds.set(key, seen ?? this.#adds.get(key));
      }
    }
    for (const { key, afterMs } of out.delayedKeys) {
      const earliest = Math.min(this.#delayed.get(key) ?? afterMs, afterMs);
      this.#delayed.set(key, earliest);
    }
  }

  /**
   * Writes the batch: drops, then the lowerings' versions, then lowerings,
   * then adds, then delayed adds,
   * keys in parallel within each step; each write that succeeds leaves the
   * batch. Throws the first failure once its step has settled.
   */
  async apply(deps: {
    expectations: ExpectationsStore;
    queue: WorkQueue;
  }): Promise<void> {
    const { expectations, queue } = deps;
    await settle(this.#drops, (k) => expectations.deleteExpectations(k));
    await settle(
      this.#noted,
      async (k, seen) => await queue.noteSeen?.(k, seen)
    );
    await settle(this.#lowers, (k, events) =>
      expectations.lowerObserved(k, events)
    );
    const queued = await Promise.allSettled([
      settle(this.#adds, (k, seen) => queue.add(k, seen)),
      settle(this.#releases, (_, r) => queue.add(r.key, r.seen)),
    ]);
    const failed = queued.find((r) => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    await settle(this.#delayed, (k, ms) => queue.addAfter(k, ms));
  }
}

/**
 * Runs `write` for every entry at once, removes the entries whose write
 * succeeded, and throws the first failure once all settled.
 */
const settle = async <V>(
  entries: Set<string> | Map<string, V>,
  write: (key: string, value: V) => Promise<void>
): Promise<void> => {
  const pairs: [string, V][] =
    entries instanceof Map
      ? [...entries]
      : [...entries].map((k) => [k, undefined as V]);
  const results = await Promise.allSettled(
    pairs.map(async ([k, v]) => {
      await write(k, v);
      entries.delete(k);
    })
  );
  const failed = results.find((r) => r.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
};
