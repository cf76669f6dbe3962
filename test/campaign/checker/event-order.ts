/**
 * Puts the events of the checker's separate watches back into one order.
 * Each watch (pods, nodes, DaemonSets, revisions) is its own stream, so a
 * pod deletion can arrive a moment before the node update that caused it;
 * judged in arrival order, the controller would look guilty of deleting a
 * pod from an eligible node. The test bed has one etcd, whose revision is
 * every object's resourceVersion, so versions order events across kinds:
 * each event is held `holdMs` and released in version order. (An event
 * that arrives later than that behind a newer one is applied late; the
 * history keeps its arrival time.)
 */

/** One held item. */
interface Held<P> {
  version: bigint;
  seq: number;
  receivedAtMs: number;
  payload: P;
}

/** A hold-and-sort buffer keyed by resourceVersion. */
export class EventOrder<P> {
  #held: Held<P>[] = [];
  #seq = 0;
  #lastVersion = 0n;

  constructor(private readonly holdMs: number) {}

  /** Holds a payload received at `receivedAtMs` with the given version. */
  push(resourceVersion: string | undefined, receivedAtMs: number, payload: P) {
    const version = parseVersion(resourceVersion) ?? this.#lastVersion;
    if (version > this.#lastVersion) this.#lastVersion = version;
    this.#held.push({ version, seq: this.#seq++, receivedAtMs, payload });
  }

  /** How many items are held. */
  get size(): number {
    return this.#held.length;
  }

  /**
   * Returns the items due at `nowMs` in version order: the oldest versions
   * first, stopping at the first one still within its hold (everything
   * after it has a newer version), or all of them when `flush`.
   */
  release(
    nowMs: number,
    flush = false
  ): { receivedAtMs: number; payload: P }[] {
    this.#held.sort((a, b) =>
      a.version === b.version ? a.seq - b.seq : a.version < b.version ? -1 : 1
    );
    let due = 0;
    while (due < this.#held.length) {
      const item = this.#held[due];
      if (!item || (!flush && nowMs - item.receivedAtMs < this.holdMs)) break;
      due++;
    }
    return this.#held
      .splice(0, due)
      .map(({ receivedAtMs, payload }) => ({ receivedAtMs, payload }));
  }
}

/** Parses a resourceVersion as an etcd revision; opaque ones give undefined. */
const parseVersion = (rv: string | undefined): bigint | undefined =>
  rv && /^\d+$/.test(rv) ? BigInt(rv) : undefined;
