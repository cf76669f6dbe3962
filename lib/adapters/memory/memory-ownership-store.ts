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
  readonly #expiry = new Map<string, number>();
  readonly #windows = new Map<
    string,
    { startMs: number; count: number; detail: string }
  >();
  readonly #clock: Clock;

  constructor({ clock }: { clock: Clock }) {
    this.#clock = clock;
  }

  async getFence(id: string) {
    const fence = this.#fences.get(id);
    const expiresAt = this.#expiry.get(id);
    if (expiresAt !== undefined && expiresAt < this.#clock.now()) {
      return undefined;
    }
    return fence;
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

  async fence(id: string, reason: string, ttlMs?: number) {
    const now = this.#clock.now();
    this.#fences.set(id, { fencedAtMs: now, reason });
    if (ttlMs === undefined) this.#expiry.delete(id);
    else this.#expiry.set(id, now + ttlMs);
  }

  async clearFence(id: string) {
    const scoped = id.includes('/')
      ? [id]
      : [...this.#fences.keys()].filter(
          (k) => k === id || k.startsWith(`${id}/`)
        );
    for (const k of scoped) {
      this.#fences.delete(k);
      this.#expiry.delete(k);
      this.#windows.delete(k);
    }
    this.#windows.delete(id);
    this.#windows.delete(`${id}#daemon-sets`);
  }
}
