/** In-process ClusterHealthStore for the local run and tests. */
import type {
  Clock,
  ClusterHealth,
  ClusterHealthStore,
} from '../../ports/index.js';

/** Cluster health kept in a Map. */
export class MemoryClusterHealthStore implements ClusterHealthStore {
  readonly #byCluster = new Map<string, ClusterHealth>();
  readonly #clock: Clock;

  constructor({ clock }: { clock: Clock }) {
    this.#clock = clock;
  }

  async get(cluster: string): Promise<ClusterHealth | undefined> {
    return this.#byCluster.get(cluster);
  }

  async recordFailure(
    cluster: string,
    error: string,
    retryAfterMs: (failures: number) => number,
    seenFailures: number
  ): Promise<ClusterHealth> {
    const stored = this.#byCluster.get(cluster);
    if (stored !== undefined && stored.failures !== seenFailures) {
      return stored;
    }
    const failures = (stored?.failures ?? 0) + 1;
    const health = {
      failures,
      openUntilMs: this.#clock.now() + retryAfterMs(failures),
      lastError: error,
    };
    this.#byCluster.set(cluster, health);
    return health;
  }

  async claimProbe(cluster: string, untilMs: number): Promise<boolean> {
    const health = this.#byCluster.get(cluster);
    const now = this.#clock.now();
    if (health === undefined || health.openUntilMs > now) return false;
    if ((health.probeUntilMs ?? 0) >= now) return false;
    this.#byCluster.set(cluster, { ...health, probeUntilMs: untilMs });
    return true;
  }

  async releaseProbe(cluster: string, untilMs: number): Promise<void> {
    const health = this.#byCluster.get(cluster);
    if (health?.probeUntilMs !== untilMs) return;
    const { probeUntilMs: _, ...released } = health;
    this.#byCluster.set(cluster, released);
  }

  async reset(cluster: string): Promise<void> {
    this.#byCluster.delete(cluster);
  }
}
