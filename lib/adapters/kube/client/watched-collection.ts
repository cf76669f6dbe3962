/**
 * One collection of a cluster kept in a warm container's memory, as a
 * client-go informer keeps its store: listed once, then kept current by a
 * watch. A Lambda container is frozen between invocations and its
 * connections may be dead when it thaws, so a read resumes the watch from
 * the last resourceVersion whenever the stream ended or went silent; the API
 * server replays what happened meanwhile from its watch cache, or answers
 * 410 and the collection is listed again.
 *
 * Why a read may trust it: upstream's sync acts on an informer cache that
 * holds at least every event whose handler queued the key. Here the bridge
 * records the version of each such event with the key (WorkQueue.add's
 * `seen`), and a read waits until the collection has reached it; if the
 * watch does not bring it within `waitMs` (a pod that left the selector, a
 * stalled stream), the read lists from the API server's watch cache no older
 * than that version. Expectations cover the sync's own writes, as upstream.
 */
import { mustRelist } from '../../../errors.js';
import { parseResourceVersion } from '../../../policy/resource-version.js';
import type { WatchEvent } from '../../../ports/index.js';
import type { KubeObject } from '../../../reconcile/k8s/types.js';
import { deepFreeze } from './deep-freeze.js';

/** Where the collection comes from (one path, one label selector). */
export interface CollectionSource<T extends KubeObject> {
  /** Lists every object, no older than `minVersion` when given (else quorum). */
  list(minVersion: string | undefined): Promise<{
    items: T[];
    resourceVersion: string;
  }>;
  /** Streams changes after `resourceVersion`, bookmarks included. */
  watch(
    resourceVersion: string,
    signal: AbortSignal
  ): AsyncIterable<WatchEvent<T>>;
}

/** How patient and how trusting a collection is. */
export interface WatchedCollectionOptions<T extends KubeObject> {
  /** Longest wait for the watch to reach a seen version before relisting. */
  waitMs: number;
  /** A stream silent this long is reopened at the next read. */
  silentMs: number;
  /** A collection unread this long is listed afresh at the next read. */
  idleMs: number;
  /** Drops what no reader needs before an object is kept. */
  compact?: (obj: T) => T;
  now?: () => number;
}

/** The objects of one collection, kept current by list and watch. */
export class WatchedCollection<T extends KubeObject> {
  readonly #source: CollectionSource<T>;
  readonly #o: WatchedCollectionOptions<T>;
  readonly #now: () => number;
  readonly #items = new Map<string, T>();
  /** The version the objects are current to; undefined: list first. */
  #version: bigint | undefined;
  #stream: AbortController | undefined;
  #lastHeardMs = 0;
  #lastReadMs = 0;
  /** The list in flight, which concurrent reads join. */
  #listing: Promise<void> | undefined;
  readonly #waiters = new Set<() => void>();
  /** Reads served without a list, and lists made (for the benchmarks). */
  readonly stats = { cachedReads: 0, lists: 0, resumes: 0 };

  constructor(source: CollectionSource<T>, o: WatchedCollectionOptions<T>) {
    this.#source = source;
    this.#o = o;
    this.#now = o.now ?? Date.now;
  }

  /**
   * Returns every object, current to at least `seen` (a resourceVersion)
   * when given; 'latest' (or any other version that is not a number)
   * lists anew with a consistent read. The objects are the collection's own, frozen.
   */
  async read(seen?: string): Promise<T[]> {
    const now = this.#now();
    const needed = parseResourceVersion(seen);
    const idle = now - this.#lastReadMs > this.#o.idleMs;
    this.#lastReadMs = now;
    if (this.#version === undefined || idle || (seen && needed === undefined)) {
      await this.#relist(needed === undefined ? undefined : seen);
    } else {
      if (
        this.#stream === undefined ||
        now - this.#lastHeardMs > this.#o.silentMs
      ) {
        this.#resume();
      }
      if (needed !== undefined && !(await this.#reached(needed))) {
        await this.#relist(seen);
      } else {
        this.stats.cachedReads++;
      }
    }
    return [...this.#items.values()];
  }

  /** Stops the watch; the next read lists again. */
  close(): void {
    this.#stream?.abort();
    this.#stream = undefined;
    this.#version = undefined;
    this.#items.clear();
    this.#wake();
  }

  /** How many objects are kept. */
  get size(): number {
    return this.#items.size;
  }

  /**
   * Lists no older than `min` (a consistent list without one). Concurrent
   * reads (a batch's syncs of one cluster share its nodes) join a list in
   * flight; one that needs a newer version than that list brought lists
   * again.
   */
  async #relist(min: string | undefined): Promise<void> {
    while (this.#listing !== undefined) {
      await this.#listing;
      const needed = parseResourceVersion(min);
      if (needed !== undefined && this.#version !== undefined) {
        if (this.#version >= needed) return;
      } else if (min === undefined && this.#version !== undefined) {
        return;
      }
    }
    this.#listing = this.#list(min).finally(() => {
      this.#listing = undefined;
    });
    await this.#listing;
  }

  async #list(min: string | undefined): Promise<void> {
    this.#stream?.abort();
    this.#stream = undefined;
    this.stats.lists++;
    const { items, resourceVersion } = await this.#source.list(min);
    this.#items.clear();
    for (const item of items) this.#keep(item);
    this.#version = parseResourceVersion(resourceVersion);
    // A version that is not a number cannot be compared: no cache then.
    if (this.#version !== undefined) this.#resume();
  }

  /** (Re)opens the watch from the current version. */
  #resume(): void {
    this.#stream?.abort();
    const stream = new AbortController();
    this.#stream = stream;
    this.#lastHeardMs = this.#now();
    this.stats.resumes++;
    const from = String(this.#version);
    void (async () => {
      try {
        for await (const event of this.#source.watch(from, stream.signal)) {
          if (stream.signal.aborted) return;
          this.#apply(event);
        }
      } catch (e) {
        // 410: the version was compacted away; list at the next read.
        // Anything else (a reset, a timeout): resumed at the next read.
        if (!stream.signal.aborted && mustRelist(e)) {
          this.#version = undefined;
        }
      } finally {
        if (this.#stream === stream) this.#stream = undefined;
        this.#wake();
      }
    })();
  }

  #apply(event: WatchEvent<T>): void {
    this.#lastHeardMs = this.#now();
    const obj = event.object;
    if (event.type === 'DELETED') this.#items.delete(keyOf(obj));
    else if (event.type === 'ADDED' || event.type === 'MODIFIED') {
      this.#keep(obj);
    }
    const version = parseResourceVersion(obj.metadata?.resourceVersion);
    if (
      version !== undefined &&
      this.#version !== undefined &&
      version > this.#version
    ) {
      this.#version = version;
    }
    this.#wake();
  }

  #keep(obj: T): void {
    const kept = this.#o.compact ? this.#o.compact(obj) : obj;
    this.#items.set(keyOf(obj), deepFreeze(kept));
  }

  /** Waits until the collection reached `needed`, or the wait ran out. */
  #reached(needed: bigint): Promise<boolean> {
    const reached = () =>
      this.#version !== undefined && this.#version >= needed;
    if (reached()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(reached());
      };
      const check = () => {
        if (reached() || this.#stream === undefined) done();
      };
      const timer = setTimeout(done, this.#o.waitMs);
      this.#waiters.add(check);
    });
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

const keyOf = (obj: KubeObject): string =>
  `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
