/**
 * The list+watch cache on the real API server: adds, updates and deletes
 * arrive; changes made while nobody watched arrive on the next run as
 * relist differences (deletes with the last known object).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/kube-http.js';
import { KubeInformer } from '#lib/adapters/kube/kube-informer.js';
import type { Pod } from '#lib/reconcile/types.js';
import { FakeLogger } from '../helpers/fakes/fake-logger.js';
import { createNamespace, deleteNamespace } from '../testbed/kube-fixtures.js';
import { waitFor } from '../testbed/processes.js';
import { adminHttp } from './sync-loop.js';

describe('KubeInformer', () => {
  const ns = `informer-${Date.now().toString(36)}`;
  const podsPath = `/api/v1/namespaces/${ns}/pods`;
  let http: KubeHttp;
  const seen: string[] = [];
  let informer: KubeInformer<Pod>;

  const createPod = (name: string) =>
    http.request('create pod', 'POST', podsPath, {
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, labels: { v: '1' } },
        spec: { nodeName: 'nowhere', containers: [{ name: 'c', image: 'i' }] },
      }),
    });
  const deletePod = (name: string) =>
    http.request('delete pod', 'DELETE', `${podsPath}/${name}`, {
      query: { gracePeriodSeconds: 0 },
    });
  const until = (entry: string) =>
    waitFor(
      entry,
      async () => (seen.includes(entry) ? true : undefined),
      10_000,
      50
    );

  beforeAll(async () => {
    http = adminHttp();
    await createNamespace(http, ns);
    informer = new KubeInformer<Pod>({
      http,
      path: podsPath,
      logger: new FakeLogger(),
      handlers: {
        onAdd: (p) => {
          seen.push(`add ${p.metadata?.name}`);
        },
        onUpdate: (_, p) => {
          seen.push(`update ${p.metadata?.name} v=${p.metadata?.labels?.v}`);
        },
        onDelete: (p) => {
          seen.push(`delete ${p.metadata?.name}`);
        },
      },
    });
  });

  afterAll(async () => {
    await deleteNamespace(http, ns);
    http.close();
  });

  it('reports adds, updates and deletes while watching', async () => {
    // Prepare
    await createPod('before');
    const controller = new AbortController();
    const running = informer.run(controller.signal);
    await until('add before');
    // Act
    await createPod('a');
    await http.request('label', 'PATCH', `${podsPath}/a`, {
      body: JSON.stringify({ metadata: { labels: { v: '2' } } }),
      contentType: 'application/merge-patch+json',
    });
    await deletePod('before');
    // Assess
    await until('add a');
    await until('update a v=2');
    await until('delete before');
    expect(informer.hasSynced()).toBe(true);
    controller.abort();
    await running;
  });

  it('reports what changed while it was stopped when it runs again', async () => {
    // Prepare: changes nobody watches.
    await createPod('b');
    await deletePod('a');
    seen.length = 0;
    const controller = new AbortController();
    // Act
    const running = informer.run(controller.signal);
    // Assess
    await until('add b');
    await until('delete a');
    expect([...informer.store.keys()].sort()).toEqual([`${ns}/b`]);
    controller.abort();
    await running;
  });
});
