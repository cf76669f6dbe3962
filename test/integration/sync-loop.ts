/**
 * Drives the sync core against the real control plane in a loop (no queue):
 * real Kubernetes adapters, in-memory expectations and backoff, the write
 * itself as the observation (quorum reads).
 */
import { KubeConfig } from '@kubernetes/client-node';
import { inject } from 'vitest';
import { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import type { SyncDeps } from '#lib/sync/context.js';
import { syncDaemonSet } from '#lib/sync/sync-daemon-set.js';
import { FakeLogger } from '../helpers/fakes/fake-logger.js';
import { kubeSyncDeps } from '../helpers/kube-sync-deps.js';
import { SelfObservingPodControl } from '../helpers/self-observing-pod-control.js';

export const CLUSTER = 'local';

/** Returns a raw client on the test bed's admin identity. */
export const adminHttp = (): KubeHttp => {
  const kc = new KubeConfig();
  kc.loadFromFile(inject('kubeconfigPath'));
  return new KubeHttp({ kubeConfig: kc });
};

/** Returns SyncDeps wired to the real API server. */
export const realDeps = (http: KubeHttp): SyncDeps => {
  const deps = kubeSyncDeps(http, new FakeLogger());
  return {
    ...deps,
    podControl: new SelfObservingPodControl({
      inner: deps.podControl,
      expectations: deps.expectations,
      keyOf: (ds) =>
        `${CLUSTER}/${ds.metadata?.namespace}/${ds.metadata?.name}`,
    }),
  };
};

/**
 * Syncs `cluster/ns/name` every `intervalMs` (sync errors are retried, as a
 * queue would) until `done()` holds; calls `observe()` after every sync.
 */
export const syncUntil = async (
  key: string,
  deps: SyncDeps,
  done: () => Promise<boolean>,
  {
    timeoutMs = 60_000,
    intervalMs = 250,
    observe,
  }: {
    timeoutMs?: number;
    intervalMs?: number;
    observe?: () => Promise<void>;
  } = {}
): Promise<{ syncs: number; errors: number; ms: number }> => {
  const started = Date.now();
  let syncs = 0;
  let errors = 0;
  for (;;) {
    try {
      await syncDaemonSet(key, deps);
    } catch {
      errors++;
    }
    syncs++;
    if (observe) await observe();
    if (await done()) return { syncs, errors, ms: Date.now() - started };
    if (Date.now() - started > timeoutMs) {
      throw new Error(
        `${key} did not converge in ${timeoutMs} ms (${syncs} syncs, ${errors} errors)`
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
};
