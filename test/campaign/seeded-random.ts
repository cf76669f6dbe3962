/**
 * A small seeded generator (mulberry32), so a campaign run's workload and
 * fault plan follow from its seed alone.
 */

/** Draws numbers from a seed; the same seed draws the same sequence. */
export class SeededRandom {
  readonly #seed: number;
  #state: number;

  constructor(seed: number) {
    this.#seed = seed >>> 0;
    this.#state = this.#seed;
  }

  /** Returns a number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** Returns an integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Returns true with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Returns one element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** Returns a generator for a named sub-stream of the seed, whatever was drawn here. */
  fork(label: string): SeededRandom {
    let h = this.#seed ^ 0x9e3779b9;
    for (const c of label) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
    return new SeededRandom(h >>> 0);
  }
}
