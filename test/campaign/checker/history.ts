/**
 * The run's bounded history: every watch event the checker received (in a
 * one-line summary) and every note of the runner, with wall-clock times,
 * tagged with the DaemonSets, nodes and pods they are about so a violation
 * can be printed with just the entries that explain it.
 */

/** One line of history, as the runner prints it. */
export interface HistoryEntry {
  atMs: number;
  kind: 'event' | 'note';
  text: string;
}

/** What an entry is about: "ds:<ns/name>", "node:<name>", "pod:<name>". */
export type Subject = `${'ds' | 'node' | 'pod'}:${string}`;

interface TaggedEntry extends HistoryEntry {
  subjects: readonly Subject[];
}

/** Keeps the newest `capacity` entries, oldest dropped first. */
export class History {
  readonly #entries: (TaggedEntry | undefined)[];
  #next = 0;
  #size = 0;

  constructor(readonly capacity = 50_000) {
    this.#entries = new Array(capacity);
  }

  /** Appends one entry, evicting the oldest when full. */
  add(entry: TaggedEntry): void {
    this.#entries[this.#next] = entry;
    this.#next = (this.#next + 1) % this.capacity;
    this.#size = Math.min(this.#size + 1, this.capacity);
  }

  /** Returns all entries, oldest first. */
  all(): TaggedEntry[] {
    const start = (this.#next - this.#size + this.capacity) % this.capacity;
    const out: TaggedEntry[] = [];
    for (let i = 0; i < this.#size; i++) {
      const e = this.#entries[(start + i) % this.capacity];
      if (e) out.push(e);
    }
    return out;
  }

  /**
   * Returns the notes and the entries about any of `subjects` within
   * `windowMs` either side of `atMs`, oldest first, at most `limit` (the
   * newest are kept: they are closest to the violation's cause).
   */
  around(
    subjects: readonly Subject[],
    atMs: number,
    windowMs: number,
    limit: number
  ): HistoryEntry[] {
    const wanted = new Set(subjects);
    return this.all()
      .filter(
        (e) =>
          Math.abs(e.atMs - atMs) <= windowMs &&
          (e.kind === 'note' || e.subjects.some((s) => wanted.has(s)))
      )
      .slice(-limit)
      .map(({ atMs: at, kind, text }) => ({ atMs: at, kind, text }));
  }
}
