/**
 * Raw watch streams on the real API server: events arrive in order from a
 * listed resourceVersion and the stream stops when the caller aborts. (A 410
 * Gone is not provoked by an etcd compaction here: the API server answers
 * watches from its watch cache, which keeps events until its ring buffer
 * drops ones older than 75 s; serverless/expire-watch-history.ts waits for
 * that, and serverless/bridge-resume.test.ts gets real 410s.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import type { WatchEvent } from '#lib/ports/index.js';
import type { Pod } from '#lib/reconcile/k8s/types.js';
import { createNamespace, deleteNamespace } from '../testbed/kube-fixtures.js';
import { adminHttp } from './sync-loop.js';

describe('watch streams', () => {
  const ns = `watch-${Date.now().toString(36)}`;
  let http: KubeHttp;

  beforeAll(async () => {
    http = adminHttp();
    await createNamespace(http, ns);
  });

  afterAll(async () => {
    await deleteNamespace(http, ns);
    http.close();
  });

  it('delivers a create and a delete made after the listed resourceVersion', async () => {
    // Prepare
    const list = await http.request<{ metadata: { resourceVersion: string } }>(
      'list pods',
      'GET',
      `/api/v1/namespaces/${ns}/pods`
    );
    const controller = new AbortController();
    const seen: WatchEvent<Pod>[] = [];
    const watching = (async () => {
      for await (const event of http.watch<Pod>(
        'watch pods',
        `/api/v1/namespaces/${ns}/pods`,
        {
          resourceVersion: list.metadata.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: 30,
        },
        controller.signal
      )) {
        seen.push(event);
        if (event.type === 'DELETED') controller.abort();
      }
    })();
    // Act
    await http.request('create pod', 'POST', `/api/v1/namespaces/${ns}/pods`, {
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'w' },
        spec: { nodeName: 'nowhere', containers: [{ name: 'c', image: 'i' }] },
      }),
    });
    await http.request(
      'delete pod',
      'DELETE',
      `/api/v1/namespaces/${ns}/pods/w`,
      { query: { gracePeriodSeconds: 0 } }
    );
    await watching;
    // Assess
    const types = seen
      .filter((e) => e.type !== 'BOOKMARK')
      .map((e) => `${e.type} ${e.object.metadata?.name}`);
    expect(types[0]).toBe('ADDED w');
    expect(types.at(-1)).toBe('DELETED w');
  });
});
