/**
 * RequestBudget for the local run: the same adaptive buckets as in AWS
 * (shared-request-budget.ts), the state in a Map of this process, so
 * `npm start` backs off a cluster that pushes back and speeds up on one
 * that admits more.
 */
import type { BudgetState } from '../../policy/request-budget.js';
import type { Clock } from '../../ports/index.js';
import {
  type BudgetStateStore,
  SharedRequestBudget,
} from '../shared-request-budget.js';

/** Budget states in a Map, each with a write counter as its version. */
class MemoryBudgetStates implements BudgetStateStore<number> {
  readonly #byCluster = new Map<string, { state: BudgetState; v: number }>();

  async read(
    cluster: string
  ): Promise<{ state?: BudgetState; version: number }> {
    const stored = this.#byCluster.get(cluster);
    return stored === undefined
      ? { version: 0 }
      : { state: stored.state, version: stored.v };
  }

  async write(
    cluster: string,
    state: BudgetState,
    version: number
  ): Promise<boolean> {
    if ((this.#byCluster.get(cluster)?.v ?? 0) !== version) return false;
    this.#byCluster.set(cluster, { state, v: version + 1 });
    return true;
  }
}

/** Per-cluster adaptive token buckets in memory. */
export class MemoryRequestBudget extends SharedRequestBudget<number> {
  constructor(o: { clock: Clock; sleep?: (ms: number) => Promise<void> }) {
    super({ ...o, store: new MemoryBudgetStates() });
  }
}
