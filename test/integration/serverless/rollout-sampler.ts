/**
 * Watches a rollout's guarantees continuously: lists the namespace's pods
 * every ~25 ms while the rollout runs and keeps the worst value of each
 * quantity a rolling update promises to bound. A rollout over five KWOK
 * nodes can take as little as a second; each node's turn (old pod deleted,
 * new one created, bound and made Ready) a few hundred ms, and the sampler
 * must see inside it.
 */
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { abortableSleep } from '#lib/bridge/abortable-sleep.js';
import type { Pod } from '#lib/reconcile/k8s/types.js';
import { isPodAvailable, livePodsByNode } from './cluster-state.js';

/** The worst values seen across all samples. */
export interface RolloutWorst {
  samples: number;
  /** Most eligible nodes without an available pod at one time. */
  maxUnavailableNodes: number;
  /** Fewest eligible nodes with an available pod at one time. */
  minAvailableNodes: number;
  /** Most live pods on one node. */
  maxPodsOnNode: number;
  /** Most nodes running more than one live pod at one time (surge). */
  maxSurgeNodes: number;
}

/** Samples pods of a namespace in the background until stopped. */
export class RolloutSampler {
  readonly #worst: RolloutWorst;
  readonly #stop = new AbortController();
  readonly #loop: Promise<void>;
  #failure: unknown;

  private constructor(
    admin: KubeHttp,
    ns: string,
    nodes: readonly string[],
    everyMs: number,
    labelSelector: string | undefined
  ) {
    this.#worst = {
      samples: 0,
      maxUnavailableNodes: 0,
      minAvailableNodes: nodes.length,
      maxPodsOnNode: 0,
      maxSurgeNodes: 0,
    };
    // Kept until stop(): a read failing mid-rollout must fail the test, not
    // surface as an unhandled rejection.
    this.#loop = this.#run(admin, ns, nodes, everyMs, labelSelector).catch(
      (e: unknown) => {
        this.#failure = e ?? new Error('sampler failed');
      }
    );
  }

  /**
   * Starts sampling the pods of `ns` on the eligible `nodes` (only those
   * matching `labelSelector` when given: one DaemonSet among several).
   */
  static start(
    admin: KubeHttp,
    ns: string,
    nodes: readonly string[],
    {
      everyMs = 25,
      labelSelector,
    }: { everyMs?: number; labelSelector?: string } = {}
  ): RolloutSampler {
    return new RolloutSampler(admin, ns, nodes, everyMs, labelSelector);
  }

  /** Stops sampling and returns the worst values (rethrows a failed read). */
  async stop(): Promise<RolloutWorst> {
    this.#stop.abort();
    await this.#loop;
    if (this.#failure !== undefined) throw this.#failure;
    return { ...this.#worst };
  }

  async #run(
    admin: KubeHttp,
    ns: string,
    nodes: readonly string[],
    everyMs: number,
    labelSelector: string | undefined
  ): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      const started = Date.now();
      this.#record(await livePodsByNode(admin, ns, labelSelector), nodes);
      await abortableSleep(
        Math.max(0, everyMs - (Date.now() - started)),
        signal
      );
    }
  }

  #record(pods: ReadonlyMap<string, Pod[]>, nodes: readonly string[]): void {
    const available = nodes.filter((n) =>
      (pods.get(n) ?? []).some(isPodAvailable)
    ).length;
    const counts = nodes.map((n) => pods.get(n)?.length ?? 0);
    const w = this.#worst;
    w.samples++;
    w.maxUnavailableNodes = Math.max(
      w.maxUnavailableNodes,
      nodes.length - available
    );
    w.minAvailableNodes = Math.min(w.minAvailableNodes, available);
    w.maxPodsOnNode = Math.max(w.maxPodsOnNode, ...counts);
    w.maxSurgeNodes = Math.max(
      w.maxSurgeNodes,
      counts.filter((c) => c > 1).length
    );
  }
}
