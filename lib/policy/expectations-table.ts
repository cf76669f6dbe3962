/**
 * Expectations held in memory, as upstream's `ControllerExpectations` holds
 * them (pkg/controller/controller_utils.go): the local run's store and the
 * overlay of a dry run (`plan`, `explain`). Deleting leaves a tombstone, so
 * an overlay can tell "deleted here" from "never written here".
 */
import type {
  Clock,
  ExpectationsStore,
  ObservedPodEvent,
} from '../ports/index.js';
import {
  type ExpectationsRecord,
  expectationsSatisfied,
  isExpired,
  lowered,
} from '../reconcile/expectations.js';
import { observedAfter, observedCounts } from './observed-events.js';

/** Expectations kept in a Map, keyed by DaemonSet key. */
export class ExpectationsTable implements ExpectationsStore {
  readonly #records = new Map<string, ExpectationsRecord | undefined>();
  /** The version each key's records were lowered through (outlives them). */
  readonly #through = new Map<string, bigint>();
  readonly #clock: Clock;

  constructor({ clock }: { clock: Clock }) {
    this.#clock = clock;
  }

  /** Returns the record as stored (for tests and diagnostics). */
  get(key: string): ExpectationsRecord | undefined {
    return this.#records.get(key);
  }

  /** Returns whether this table wrote the key (set, lowered or deleted). */
  holds(key: string): boolean {
    return this.#records.has(key);
  }

  async satisfiedExpectations(key: string): Promise<boolean> {
    return expectationsSatisfied(this.#records.get(key), this.#clock.now());
  }

  async setExpectations(key: string, add: number, del: number): Promise<void> {
    this.#records.set(key, { add, del, timestampMs: this.#clock.now() });
  }

  async lowerExpectations(
    key: string,
    add: number,
    del: number
  ): Promise<void> {
    const record = this.#records.get(key);
    if (record !== undefined) this.#records.set(key, lowered(record, add, del));
  }

  async lowerObserved(
    key: string,
    events: readonly ObservedPodEvent[]
  ): Promise<void> {
    const counts = observedAfter(events, this.#through.get(key));
    if (counts === undefined) {
      const { add, del } = observedCounts(events);
      return this.lowerExpectations(key, add, del);
    }
    if (counts.newest === undefined) return;
    this.#through.set(key, counts.newest);
    const record = this.#records.get(key);
    if (record !== undefined && !isExpired(record, this.#clock.now())) {
      await this.lowerExpectations(key, counts.add, counts.del);
    }
  }

  async creationObserved(key: string): Promise<void> {
    await this.lowerExpectations(key, 1, 0);
  }

  async deletionObserved(key: string): Promise<void> {
    await this.lowerExpectations(key, 0, 1);
  }

  async deleteExpectations(key: string): Promise<void> {
    this.#records.set(key, undefined);
  }
}
