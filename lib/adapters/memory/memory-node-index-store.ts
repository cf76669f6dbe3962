/** In-process NodeIndexStore for the local run and tests. */
import type { NodeIndexStore, StoredNodeIndex } from '../../ports/index.js';
import type { NodeFacts } from '../../reconcile/event-keys/resumed.js';

/** Node indexes kept in a Map per cluster (copies in, copies out). */
export class MemoryNodeIndexStore implements NodeIndexStore {
  readonly #byCluster = new Map<
    string,
    { nodes: Map<string, NodeFacts>; resourceVersion: string }
  >();
  /** How many times an index was saved (for tests). */
  saves = 0;

  async load(cluster: string): Promise<StoredNodeIndex> {
    const stored = this.#byCluster.get(cluster);
    if (stored === undefined) return { nodes: new Map() };
    return {
      nodes: new Map(stored.nodes),
      resourceVersion: stored.resourceVersion,
    };
  }

  /** Stores the index (one process holds every lease: `holder` unchecked). */
  async save(
    cluster: string,
    nodes: ReadonlyMap<string, NodeFacts>,
    _holder: string,
    resourceVersion: string
  ): Promise<void> {
    this.saves++;
    this.#byCluster.set(cluster, { nodes: new Map(nodes), resourceVersion });
  }

  async forget(cluster: string): Promise<void> {
    this.#byCluster.delete(cluster);
  }
}
