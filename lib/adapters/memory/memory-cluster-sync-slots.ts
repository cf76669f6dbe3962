/** In-process ClusterSyncSlots for tests, with the DynamoDB store's rules. */
import type { Clock, ClusterSyncSlots } from '../../ports/index.js';

/** Slots kept in a Map: holder → until, per cluster. */
export class MemoryClusterSyncSlots implements ClusterSyncSlots {
  readonly #slots = new Map<string, Map<string, number>>();
  readonly #clock: Clock;

  constructor({ clock }: { clock: Clock }) {
    this.#clock = clock;
  }

  async acquire(
    cluster: string,
    holder: string,
    max: number,
    untilMs: number
  ): Promise<boolean> {
    const now = this.#clock.now();
    const held = this.#slots.get(cluster) ?? new Map<string, number>();
    for (const [h, until] of held) if (until < now) held.delete(h);
    if (held.size >= max && !held.has(holder)) return false;
    held.set(holder, untilMs);
    this.#slots.set(cluster, held);
    return true;
  }

  async release(cluster: string, holder: string): Promise<void> {
    this.#slots.get(cluster)?.delete(holder);
  }
}
