/**
 * An in-process work queue with client-go's workqueue guarantees
 * (util/workqueue: queue.go, delaying_queue.go, rate_limiting_queue.go), for
 * the local run and tests:
 * - a key is handed to at most one worker at a time;
 * - adding a key that is already waiting is a no-op (duplicates coalesce);
 * - adding a key while it is being processed queues it again after `done`;
 * - `addAfter` keeps the earliest ready time of a key;
 * - `addRateLimited` waits 5 ms · 2^failures (≤ 1000 s); `forget` resets.
 */
import type { WorkQueue, WorkQueueLedger } from '../../ports/index.js';
import { itemRetryDelayMs } from '../../reconcile/backoff-policy.js';
import { SeenRecord } from './seen-record.js';

/** client-go-style work queue over keys. */
export class MemoryWorkQueue {
  readonly #queue: string[] = [];
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #waiting = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  readonly #failures = new Map<string, number>();
  readonly #getters: ((key: string | undefined) => void)[] = [];
  readonly #now: () => number;
  #shuttingDown = false;

  constructor({ now = Date.now }: { now?: () => number } = {}) {
    this.#now = now;
  }

  /** Marks the key as needing a sync. */
  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (this.#processing.has(key)) return;
    const getter = this.#getters.shift();
    if (getter) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      getter(key);
    } else {
      this.#queue.push(key);
    }
  }

  /** Adds the key after `delayMs`; an earlier pending time wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = this.#now() + delayMs;
    const pending = this.#waiting.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.#waiting.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref?.();
    this.#waiting.set(key, { at, timer });
  }

  /** Adds the key after its per-key exponential backoff. */
  addRateLimited(key: string): void {
    this.addAfter(key, itemRetryDelayMs(this.recordFailure(key) - 1));
  }

  /** Counts one failure of the key; returns the count. */
  recordFailure(key: string): number {
    const failures = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, failures);
    return failures;
  }

  /** Forgets the key's failures (after a successful sync). */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  /** Returns how many times the key failed since it was last forgotten. */
  numRequeues(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /** Waits for the next key; undefined once shut down. */
  get(): Promise<string | undefined> {
    const key = this.#queue.shift();
    if (key !== undefined) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      return Promise.resolve(key);
    }
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /** Marks the key processed; a key added meanwhile is queued again. */
  done(key: string): void {
    this.#processing.delete(key);
    if (this.#dirty.has(key)) {
      this.#dirty.delete(key);
      this.add(key);
    }
  }

  /** Number of keys ready to be handed out. */
  get length(): number {
    return this.#queue.length;
  }

  /** Stops handing out keys and releases waiting workers. */
  shutDown(): void {
    this.#shuttingDown = true;
    for (const { timer } of this.#waiting.values()) clearTimeout(timer);
    this.#waiting.clear();
    for (const getter of this.#getters.splice(0)) getter(undefined);
  }
}

/** Returns the queue as the WorkQueue and WorkQueueLedger ports. */
export const memoryQueuePorts = (
  q: MemoryWorkQueue
): { queue: WorkQueue; ledger: WorkQueueLedger } => {
  // What each key's adds saw (never cleared, as the stores keep it).
  const seen = new Map<string, SeenRecord>();
  const mustReadLatest = new Set<string>();
  const recordOf = (key: string): SeenRecord => {
    let record = seen.get(key);
    if (record === undefined) {
      record = new SeenRecord();
      seen.set(key, record);
    }
    return record;
  };
  return {
    queue: {
      add: async (key, version) => {
        if (version !== undefined) recordOf(key).raise(version);
        q.add(key);
      },
      addAfter: async (key, delayMs) => q.addAfter(key, delayMs),
      // In process, a key taken off the queue is never left marked.
      addAnew: async (key) => q.add(key),
      noteSeen: async (key, version) => recordOf(key).raise(version),
    },
    ledger: {
      // get() already moved the key from dirty to processing.
      seenOf: async (key) => recordOf(key).snapshot(),
      beginSync: async (key) => ({
        failures: q.numRequeues(key),
        seen: seen.get(key)?.snapshot() ?? {},
        readLatest: mustReadLatest.has(key),
      }),
      recordFailure: async (key) => q.recordFailure(key),
      requireLatest: async (key) => {
        mustReadLatest.add(key);
      },
      forget: async (key) => {
        q.forget(key);
        mustReadLatest.delete(key);
      },
      forgetReleases: async (key, pods) => seen.get(key)?.forgetReleases(pods),
    },
  };
};
