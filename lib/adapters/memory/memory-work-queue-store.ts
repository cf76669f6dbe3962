/**
 * In-process WorkQueueLedger and WorkQueueMarks for local runs and scenario
 * tests, with exactly the semantics of DynamoWorkQueueStore: client-go's
 * dirty set, the delaying queue's one-timer-per-key and the rate limiter's
 * failure count, plus the guards a distributed queue needs against lost
 * messages (a mark or timer whose message never came stops counting).
 */
import { randomUUID } from 'node:crypto';
import type {
  ArmedTimer,
  Clock,
  MarkFate,
  MarkOutcome,
  SeenVersion,
  SeenVersions,
  SyncStart,
  WorkQueueLedger,
  WorkQueueMarks,
} from '../../ports/index.js';
import { blockingMarkOf, markFateOf } from '../../workqueue/dirty-mark.js';
import {
  TIMER_SLACK_MS,
  UNSENT_TIMER_MS,
} from '../../workqueue/timer-message.js';
import { SeenRecord } from './seen-record.js';

/**
 * How long past its due time an armed timer still blocks a later one:
 * less than none. A timer within TIMER_SLACK_MS of its due time may be
 * firing already (timers fire up to the slack early, and a firing Lambda's
 * clock may run behind): the key is added before the timer is disarmed, so
 * the sync it causes must be able to arm the next timer in between. Past
 * its due time a timer is being fired or its message was lost; either way
 * the new timer must be armed.
 */
export const STALE_TIMER_MS = -TIMER_SLACK_MS;

/**
 * How long a key's bookkeeping outlives its last write (the item's TTL).
 * Far above the longest retry delay (1000 s) and any requeue delay, so a
 * failing key keeps its count; timers due later than this are unsupported.
 */
export const QUEUE_ITEM_TTL_MS = 7 * 24 * 60 * 60_000;

interface QueueEntry {
  dirty: boolean;
  dirtyAtMs?: number;
  markId?: string;
  /** Marked, its message not yet confirmed sent. */
  markUnsentSinceMs?: number;
  failures: number;
  readLatest?: boolean;
  seen: SeenRecord;
  /** `unsentSinceMs`: armed, its message not yet confirmed sent. */
  timer?: ArmedTimer;
  expiresAtMs: number;
}

/** Per-key queue bookkeeping kept in a Map. */
export class MemoryWorkQueueStore implements WorkQueueLedger, WorkQueueMarks {
  readonly #entries = new Map<string, QueueEntry>();
  readonly #clock: Clock;

  constructor({ clock }: { clock: Clock }) {
    this.#clock = clock;
  }

  /** Marks the key dirty unless a fresh mark is there (see the port). */
  async markDirty(
    key: string,
    seen?: SeenVersion,
    markId: string = randomUUID()
  ): Promise<MarkOutcome> {
    const now = this.#clock.now();
    const entry = this.#liveOrNew(key, now);
    if (seen !== undefined) {
      entry.seen.raise(seen);
      this.#write(key, entry, now, {});
    }
    const blocking = blockingMarkOf(entry, markId, now);
    if (blocking !== undefined) return blocking;
    this.#write(key, entry, now, {
      dirty: true,
      dirtyAtMs: now,
      markId,
      markUnsentSinceMs: now,
    });
    return { kind: 'marked' };
  }

  async markFate(key: string, markId: string): Promise<MarkFate> {
    const now = this.#clock.now();
    return markFateOf(this.#live(key, now), markId, now);
  }

  async confirmMark(key: string, markId: string): Promise<void> {
    const entry = this.#entries.get(key);
    if (entry?.markId === markId) delete entry.markUnsentSinceMs;
  }

  /** Clears the key's dirty mark (its message could not be sent). */
  async clearDirty(key: string, markId?: string): Promise<void> {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    if (markId !== undefined && entry.markId !== markId) return;
    entry.dirty = false;
    delete entry.dirtyAtMs;
    delete entry.markId;
    delete entry.markUnsentSinceMs;
  }

  /** Clears the dirty mark; returns the failures and the versions seen. */
  async beginSync(key: string): Promise<SyncStart> {
    const now = this.#clock.now();
    const entry = this.#liveOrNew(key, now);
    delete entry.dirtyAtMs;
    this.#write(key, entry, now, { dirty: false });
    return {
      failures: entry.failures,
      seen: entry.seen.snapshot(),
      readLatest: entry.readLatest === true,
    };
  }

  async raiseSeen(key: string, seen: SeenVersion): Promise<void> {
    const now = this.#clock.now();
    const entry = this.#liveOrNew(key, now);
    entry.seen.raise(seen);
    this.#write(key, entry, now, {});
  }

  async seenOf(key: string): Promise<SeenVersions> {
    return this.#entries.get(key)?.seen.snapshot() ?? {};
  }

  /** Counts one failure; returns the count including it. */
  async recordFailure(key: string): Promise<number> {
    const now = this.#clock.now();
    const entry = this.#liveOrNew(key, now);
    this.#write(key, entry, now, { failures: entry.failures + 1 });
    return entry.failures;
  }

  /** Forgets pods to release that a sync has looked at. */
  async forgetReleases(key: string, pods: readonly string[]): Promise<void> {
    this.#entries.get(key)?.seen.forgetReleases(pods);
  }

  async requireLatest(key: string): Promise<void> {
    const now = this.#clock.now();
    const entry = this.#liveOrNew(key, now);
    this.#write(key, entry, now, { readLatest: true });
  }

  /** Forgets the key's failures and `requireLatest`. */
  async forget(key: string): Promise<void> {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    entry.failures = 0;
    delete entry.readLatest;
  }

  /**
   * Arms a timer for `dueAtMs` unless an earlier (or equal) one is pending;
   * returns its token, or undefined when the pending one fires first.
   */
  async armTimer(key: string, dueAtMs: number): Promise<string | undefined> {
    const now = this.#clock.now();
    const entry = this.#liveOrNew(key, now);
    const armed = entry.timer;
    if (
      armed !== undefined &&
      armed.abandoned === undefined &&
      armed.dueAtMs <= dueAtMs &&
      armed.dueAtMs >= now - STALE_TIMER_MS &&
      !(
        armed.unsentSinceMs !== undefined &&
        armed.unsentSinceMs < now - UNSENT_TIMER_MS
      )
    ) {
      return undefined;
    }
    const token = randomUUID();
    this.#write(key, entry, now, {
      timer: { token, dueAtMs, unsentSinceMs: now },
    });
    // Outlive the timer, whatever wrote last.
    entry.expiresAtMs = Math.max(now, dueAtMs) + QUEUE_ITEM_TTL_MS;
    return token;
  }

  /** Returns whether `token` is the key's armed timer. */
  async isTimerArmed(key: string, token: string): Promise<boolean> {
    const timer = this.#live(key, this.#clock.now())?.timer;
    return timer?.token === token && timer.abandoned === undefined;
  }

  /** Returns the key's armed timer, if any. */
  async armedTimer(key: string): Promise<ArmedTimer | undefined> {
    const timer = this.#live(key, this.#clock.now())?.timer;
    return timer && { ...timer };
  }

  /** Records that the timer's message was sent (it no longer goes stale). */
  async confirmTimer(key: string, token: string): Promise<void> {
    const timer = this.#entries.get(key)?.timer;
    if (timer?.token === token) delete timer.unsentSinceMs;
  }

  /** Disarms the timer if `token` is still the armed one. */
  async disarmTimer(key: string, token: string): Promise<void> {
    const entry = this.#entries.get(key);
    if (entry?.timer?.token === token) delete entry.timer;
  }

  /** Abandons the timer if `token` is still the armed one (see the port). */
  async abandonTimer(key: string, token: string): Promise<void> {
    const timer = this.#entries.get(key)?.timer;
    if (timer?.token === token) timer.abandoned = true;
  }

  /** Returns the entry unless it expired (an expired one is dropped). */
  #live(key: string, now: number): QueueEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.expiresAtMs < now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #liveOrNew(key: string, now: number): QueueEntry {
    return (
      this.#live(key, now) ?? {
        dirty: false,
        failures: 0,
        seen: new SeenRecord(),
        expiresAtMs: now,
      }
    );
  }

  #write(
    key: string,
    entry: QueueEntry,
    now: number,
    changes: Partial<QueueEntry>
  ): void {
    Object.assign(entry, changes, { expiresAtMs: now + QUEUE_ITEM_TTL_MS });
    this.#entries.set(key, entry);
  }
}
