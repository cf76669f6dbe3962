/**
 * In-process ExpectationsStore for the local run and tests: upstream's
 * `ControllerExpectations` with an injected clock.
 */
import type { Clock, ExpectationsStore } from '../../ports/index.js';
import {
  type ExpectationsRecord,
  expectationsSatisfied,
  lowered,
} from '../../reconcile/expectations.js';

/** Expectations kept in a Map, keyed by DaemonSet key. */
export class MemoryExpectationsStore implements ExpectationsStore {
  readonly #records = new Map<string, ExpectationsRecord>();
  readonly #clock: Clock;

  constructor({ clock }: { clock: Clock }) {
    this.#clock = clock;
  }

  /** Returns the record as stored (for tests and diagnostics). */
  get(key: string): ExpectationsRecord | undefined {
    return this.#records.get(key);
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
    if (record === undefined) return;
    this.#records.set(key, lowered(record, add, del));
  }

  async creationObserved(key: string): Promise<void> {
    await this.lowerExpectations(key, 1, 0);
  }

  async deletionObserved(key: string): Promise<void> {
    await this.lowerExpectations(key, 0, 1);
  }

  async deleteExpectations(key: string): Promise<void> {
    this.#records.delete(key);
  }
}
