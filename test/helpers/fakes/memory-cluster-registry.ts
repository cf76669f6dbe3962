/** In-process ClusterRegistry for local runs and tests. */
import { parseClusterRecord } from '../../../lib/cluster/record.js';
import type {
  ClusterListing,
  ClusterRecord,
  ClusterRegistry,
  InvalidClusterRecord,
} from '../../../lib/ports/index.js';

/** Registered clusters kept in a Map; records are validated when put. */
export class MemoryClusterRegistry implements ClusterRegistry {
  readonly #records = new Map<string, ClusterRecord>();

  /** Registers `records` (validated; a bad one throws). */
  constructor(records: readonly ClusterRecord[] = []) {
    for (const r of records) this.put(r);
  }

  /** Adds or replaces a record after validating it. */
  put(record: ClusterRecord): void {
    const valid = parseClusterRecord(record);
    this.#records.set(valid.id, valid);
  }

  /** Removes a record; removing an unknown id does nothing. */
  remove(id: string): void {
    this.#records.delete(id);
  }

  async get(id: string): Promise<ClusterRecord | undefined> {
    const r = this.#records.get(id);
    return r && structuredClone(r);
  }

  /** Items put with `putInvalid`: reported by `list`, never returned. */
  readonly invalid: InvalidClusterRecord[] = [];

  async list(): Promise<ClusterListing> {
    return {
      records: [...this.#records.values()]
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map((r) => structuredClone(r)),
      invalid: [...this.invalid],
    };
  }
}
