/**
 * client-go's EventCorrelator (tools/record/events_cache.go), which decides
 * for kube-controller-manager whether an Event is written, counted into an
 * earlier one, or dropped:
 * - aggregation: from the 10th event in 10 minutes that differs from its
 *   predecessors only by message (one per created pod: "Created pod: x"),
 *   events go into one "(combined from similar events): …" Event;
 * - deduplication: an event equal to an earlier one (message included)
 *   increments that Event's count instead of creating another;
 * - spam filter: each source and object may write 25 events at once, then
 *   one every 5 minutes; the rest are dropped.
 * So a 5,000-pod create writes a few dozen Events, not 5,000. State is kept
 * per container (upstream: per process), in LRU maps of 4,096 entries.
 */

/** The parts of an Event the correlator reads. */
export interface CorrelatedEvent {
  /** Identifies the involved object and source (kind, namespace, name, uid). */
  objectKey: string;
  type: string;
  reason: string;
  message: string;
}

/** What to do with an event. */
export type Correlation =
  | { action: 'skip' }
  | {
      action: 'create';
      /** The message to write (the aggregate's when aggregated). */
      message: string;
      /** Where the outcome is remembered: pass to `created`. */
      key: string;
    }
  | {
      action: 'patch';
      /** The Event to patch. */
      name: string;
      count: number;
      message: string;
      key: string;
    };

const LRU_ENTRIES = 4_096;
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 600_000;
const SPAM_BURST = 25;
const SPAM_MS_PER_TOKEN = 300_000;
export const COMBINED_PREFIX = '(combined from similar events): ';

/** A Map that forgets its least recently used entries beyond `max`. */
class Lru<V> {
  readonly #map = new Map<string, V>();
  constructor(readonly max: number) {}

  get(key: string): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    for (const oldest of this.#map.keys()) {
      if (this.#map.size <= this.max) break;
      this.#map.delete(oldest);
    }
  }
}

/** Upstream EventCorrelator with its default options. */
export class EventCorrelator {
  readonly #aggregates = new Lru<{ messages: Set<string>; lastMs: number }>(
    LRU_ENTRIES
  );
  readonly #observed = new Lru<{ name: string; count: number }>(LRU_ENTRIES);
  readonly #spam = new Lru<{ tokens: number; atMs: number }>(LRU_ENTRIES);

  /** Upstream `EventCorrelate`: aggregate, observe, then filter spam. */
  correlate(event: CorrelatedEvent, nowMs: number): Correlation {
    const { key, message } = this.#aggregate(event, nowMs);
    const last = this.#observed.get(key);
    // Counted even when the spam filter drops it, as upstream counts.
    if (last !== undefined) last.count++;
    if (!this.#acceptSpam(event.objectKey, nowMs)) return { action: 'skip' };
    if (last === undefined) return { action: 'create', message, key };
    return {
      action: 'patch',
      name: last.name,
      count: last.count,
      message,
      key,
    };
  }

  /** Remembers the Event written for `key` (upstream `UpdateState`). */
  written(key: string, name: string, count: number): void {
    this.#observed.set(key, { name, count });
  }

  /** Upstream `EventAggregate` with `EventAggregatorByReasonFunc`. */
  #aggregate(
    event: CorrelatedEvent,
    nowMs: number
  ): { key: string; message: string } {
    const similar = [event.objectKey, event.type, event.reason].join('\u0000');
    let record = this.#aggregates.get(similar);
    if (record === undefined || nowMs - record.lastMs > AGGREGATE_INTERVAL_MS) {
      record = { messages: new Set(), lastMs: nowMs };
    }
    record.messages.add(event.message);
    record.lastMs = nowMs;
    this.#aggregates.set(similar, record);
    if (record.messages.size < AGGREGATE_MAX_EVENTS) {
      return {
        key: `${similar}\u0000${event.message}`,
        message: event.message,
      };
    }
    // Upstream pops one message so the set stays at the threshold.
    const [first] = record.messages;
    if (first !== undefined) record.messages.delete(first);
    return { key: similar, message: `${COMBINED_PREFIX}${event.message}` };
  }

  /** Upstream `EventSourceObjectSpamFilter`: a token bucket per object. */
  #acceptSpam(objectKey: string, nowMs: number): boolean {
    const bucket = this.#spam.get(objectKey) ?? {
      tokens: SPAM_BURST,
      atMs: nowMs,
    };
    bucket.tokens = Math.min(
      SPAM_BURST,
      bucket.tokens + (nowMs - bucket.atMs) / SPAM_MS_PER_TOKEN
    );
    bucket.atMs = nowMs;
    this.#spam.set(objectKey, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens--;
    return true;
  }
}
