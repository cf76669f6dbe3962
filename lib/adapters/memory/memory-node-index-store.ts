/** In-process NodeIndexStore for the local run and tests. */
import type { NodeIndexStore } from '../../ports/index.js';
import type { NodeFacts } from '../../reconcile/event-keys/resumed.js';

/** Node indexes kept in a Map per cluster (copies in, copies out). */
export class MemoryNodeIndexStore implements NodeIndexStore {
  readonly #byCluster = new Map<string, Map<string, NodeFacts>>();
  /** How many times an index was saved (for tests). */
  saves = 0;

  async load(cluster: string): Promise<Map<string, NodeFacts>> {
    return new Map(this.#byCluster.get(cluster) ?? []);
  }

  /** Stores the index (one process holds every lease: `holder` unchecked). */
  async save(
    cluster: string,
    nodes: ReadonlyMap<string, NodeFacts>,
    _holder?: string
  ): Promise<void> {
    this.saves++;
    this.#byCluster.set(cluster, new Map(nodes));
  }
}
