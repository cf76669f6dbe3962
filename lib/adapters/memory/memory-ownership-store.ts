/** In-process OwnershipStore for the local run and tests. */

import { FIGHT_WINDOW_MS } from '../../policy/fight-detection.js';
import type {
  Clock,
  OwnershipFence,
  OwnershipStore,
} from '../../ports/index.js';

/** Fences and observation windows kept in Maps. */
export class MemoryOwnershipStore implements OwnershipStore {
  readonly #fences = new Map<string, OwnershipFence>();
  readonly #windows = new Map<
    string,
    { startMs: number; count: number; detail: string }
  >();
  readonly #clock: Clock;

  constructor({ clock }: { clock: Clock }) {
    this.#clock = clock;
  }

  async getFence(cluster: string) {
    return this.#fences.get(cluster);
  }

  async recordForeignWrites(cluster: string, detail: string): Promise<number> {
    const now = this.#clock.now();
    const w = this.#windows.get(cluster);
    if (
      w !== undefined &&
      now - w.startMs <= FIGHT_WINDOW_MS &&
      w.detail === detail
    ) {
      return w.count;
    }
    const next =
      w === undefined || now - w.startMs > FIGHT_WINDOW_MS
        ? { startMs: now, count: 1, detail }
        : { ...w, count: w.count + 1, detail };
    this.#windows.set(cluster, next);
    return next.count;
  }

  async fence(cluster: string, reason: string) {
    this.#fences.set(cluster, { fencedAtMs: this.#clock.now(), reason });
  }

  async clearFence(cluster: string) {
    this.#fences.delete(cluster);
    this.#windows.delete(cluster);
  }
}
