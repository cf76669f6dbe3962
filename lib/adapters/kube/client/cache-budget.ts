/**
 * How many objects the watched collections of one container may keep in
 * all, across every cluster it serves: past it, the collections read least
 * recently are dropped (they list again when next read), so a container
 * serving several big clusters stays within its function's memory.
 */

/** A collection the budget can weigh and drop. */
export interface BudgetedCollection {
  readonly size: number;
  close(): void;
}

/**
 * Kept objects a container may hold by default: about 95 MiB of the
 * reconcile function's 512 MB (a kept pod or node measured 2.43 KiB of heap
 * at 5,000 nodes with the protobuf schemas, 4.05 KiB with whole objects).
 */
export const DEFAULT_MAX_CACHED_OBJECTS = 40_000;

/** The container's object budget, shared by every cached reader. */
export class CacheBudget {
  readonly #max: number;
  /** Least recently read first. */
  readonly #collections = new Set<BudgetedCollection>();
  /** Collections dropped to stay within the budget (for tests and metrics). */
  evictions = 0;

  constructor(maxObjects = DEFAULT_MAX_CACHED_OBJECTS) {
    this.#max = maxObjects;
  }

  /** Notes that `collection` was just read; drops others while over budget. */
  touched(collection: BudgetedCollection): void {
    this.#collections.delete(collection);
    this.#collections.add(collection);
    let total = 0;
    for (const c of this.#collections) total += c.size;
    for (const oldest of this.#collections) {
      if (total <= this.#max || oldest === collection) break;
      total -= oldest.size;
      this.forget(oldest);
      oldest.close();
      this.evictions++;
    }
  }

  /** Stops weighing a collection (it was closed). */
  forget(collection: BudgetedCollection): void {
    this.#collections.delete(collection);
  }
}

/** The budget of this container (module scope, as Lambda keeps clients). */
export const containerCacheBudget = new CacheBudget();
