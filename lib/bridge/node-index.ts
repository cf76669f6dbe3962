/**
 * The node index one bridge run keeps: each node's labels and taints as
 * last seen (`NodeFacts`), so a node event is judged against the old node
 * without a cache, and whether it changed since the last checkpoint saved
 * it (NodeIndexStore).
 */
import type { NodeFacts } from '../reconcile/event-keys/resumed.js';

/** The facts of one run's nodes, by name. */
export class NodeIndex {
  #facts = new Map<string, NodeFacts>();
  #changed = false;

  /** Starts from a stored index. */
  use(index: Map<string, NodeFacts>): void {
    this.#facts = index;
  }

  /** Returns the node's facts as last indexed. */
  get(name: string): NodeFacts | undefined {
    return this.#facts.get(name);
  }

  /** Indexes the node's facts, and marks the index changed. */
  set(name: string, facts: NodeFacts): void {
    this.#facts.set(name, facts);
    this.#changed = true;
  }

  /** Drops the node, marking the index changed if it held it. */
  forget(name: string): void {
    this.#changed = this.#facts.delete(name) || this.#changed;
  }

  /** Returns the names of the indexed nodes. */
  names(): string[] {
    return [...this.#facts.keys()];
  }

  /** Returns the index if it changed since the last call. */
  takeChanged(): ReadonlyMap<string, NodeFacts> | undefined {
    if (!this.#changed) return undefined;
    this.#changed = false;
    return this.#facts;
  }

  /** Returns how many nodes the index holds (the cluster's size). */
  get size(): number {
    return this.#facts.size;
  }
}
