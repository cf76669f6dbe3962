/**
 * Registers the hooks most integration files start with: a KubeHttp on the
 * test bed's API server and a namespace of the file's own, both removed
 * after the file's tests.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, inject } from 'vitest';
import { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { createNamespace, deleteNamespace } from '../testbed/kube-fixtures.js';

/** The file's connection and namespace, set once `beforeAll` ran. */
export interface TestNamespace<H extends KubeHttp> {
  readonly ns: string;
  http: H;
}

/** Opens `open(kubeConfig)` and a namespace named `<prefix>-<time>`. */
export const useTestNamespace = <H extends KubeHttp = KubeHttp>(
  prefix: string,
  open: (kubeConfig: KubeConfig) => H = (kubeConfig) =>
    new KubeHttp({ kubeConfig }) as H
): TestNamespace<H> => {
  const ctx = {
    ns: `${prefix}-${Date.now().toString(36)}`,
  } as TestNamespace<H>;
  beforeAll(async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(inject('kubeconfigPath'));
    ctx.http = open(kc);
    await createNamespace(ctx.http, ctx.ns);
  });
  afterAll(async () => {
    await deleteNamespace(ctx.http, ctx.ns);
    ctx.http.close();
  });
  return ctx;
};
