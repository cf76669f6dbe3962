/**
 * The cached reader on a real API server, with its cache made stale on
 * purpose (a watch stream that stalls, as a frozen container's does): a read
 * told the version the bridge saw never answers older than it; a read told
 * nothing answers from memory; a live watch keeps the cache current without
 * lists; big lists travel gzip-compressed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import type { MessageSchema } from '#lib/adapters/kube/client/protobuf/message-schema.js';
import { KubeCachedClusterReader } from '#lib/adapters/kube/kube-cached-cluster-reader.js';
import type { WatchEvent } from '#lib/ports/index.js';
import { NATIVE_DAEMON_SET } from '#lib/reconcile/k8s/daemon-set-kind.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import { useTestNamespace } from '#test/helpers/test-namespace.js';

/** A KubeHttp whose watch streams bring nothing while `stalled`. */
class StallableHttp extends KubeHttp {
  stalled = false;

  override async *watch<T>(
    what: string,
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    signal?: AbortSignal,
    protobuf?: MessageSchema
  ): AsyncGenerator<WatchEvent<T>> {
    for await (const event of super.watch<T>(
      what,
      path,
      query,
      signal,
      protobuf
    )) {
      if (this.stalled) {
        // A half-open connection: nothing more arrives until it is dropped.
        await new Promise<void>((r) =>
          signal?.addEventListener('abort', () => r())
        );
        return;
      }
      yield event;
    }
  }
}

const owner = (app: string): DaemonSet => ({
  metadata: { name: app, namespace: 'x', uid: 'u' },
  spec: {
    selector: { matchLabels: { app } },
    template: { spec: { containers: [] } },
  },
});

const podBody = (name: string, app: string) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app } },
    spec: { containers: [{ name: 'c', image: 'pause' }] },
  });

const names = (pods: Pod[]) => pods.map((p) => p.metadata?.name).sort();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('cached reader on a real API server', () => {
  const t = useTestNamespace(
    'cached',
    (kc) => new StallableHttp({ kubeConfig: kc })
  );
  let reader: KubeCachedClusterReader;

  const createPod = (name: string, app: string) =>
    t.http.request<Pod>(
      'create pod',
      'POST',
      `/api/v1/namespaces/${t.ns}/pods`,
      {
        body: podBody(name, app),
      }
    );

  /** Reads app's pods once, then stalls the watch and creates pods unseen. */
  const readThenStall = async (app: string) => {
    await createPod(`${app}-1`, app);
    await reader.listPods(t.ns, owner(app));
    t.http.stalled = true;
    // The stream swallows this one and stalls.
    await createPod(`${app}-filler`, app);
    await sleep(200);
    return createPod(`${app}-2`, app);
  };

  beforeAll(() => {
    reader = new KubeCachedClusterReader({
      http: t.http,
      kind: NATIVE_DAEMON_SET,
      timings: { waitMs: 1_000, silentMs: 70_000, idleMs: 600_000 },
    });
  });

  afterAll(() => {
    reader.close();
    t.http.stalled = false;
  });

  it('keeps a DaemonSet’s pods current by watch, without listing again', async () => {
    // Prepare
    await createPod('live-1', 'live');
    await reader.listPods(t.ns, owner('live'));
    const before = reader.stats();
    // Act
    const created = await createPod('live-2', 'live');
    const pods = await reader.listPods(
      t.ns,
      owner('live'),
      created.metadata?.resourceVersion
    );
    // Assess
    expect(names(pods)).toEqual(['live-1', 'live-2']);
    expect(reader.stats().lists).toBe(before.lists);
  });

  it('never answers older than the seen version, even with its watch stalled', async () => {
    // Prepare
    const created = await readThenStall('stale');
    // Act
    const pods = await reader.listPods(
      t.ns,
      owner('stale'),
      created.metadata?.resourceVersion
    );
    t.http.stalled = false;
    // Assess
    expect(names(pods)).toEqual(['stale-1', 'stale-2', 'stale-filler']);
  });

  it('answers a read told no seen version from memory, stale as it may be', async () => {
    // Prepare
    await readThenStall('memo');
    // Act
    const pods = await reader.listPods(t.ns, owner('memo'));
    t.http.stalled = false;
    // Assess: what an informer behind on its watch would show
    expect(names(pods)).toEqual(['memo-1']);
  });

  it('reads nodes no older than the seen version', async () => {
    // Prepare
    await reader.listNodes();
    const name = `cached-node-${Date.now().toString(36)}`;
    // Act
    const node = await t.http.request<{
      metadata: { resourceVersion: string };
    }>('create node', 'POST', '/api/v1/nodes', {
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name, annotations: { 'kwok.x-k8s.io/node': 'fake' } },
      }),
    });
    const nodes = await reader.listNodes(node.metadata.resourceVersion);
    await t.http.request('delete node', 'DELETE', `/api/v1/nodes/${name}`);
    // Assess
    expect(nodes.map((n) => n.metadata?.name)).toContain(name);
    expect(nodes.every((n) => n.metadata?.managedFields === undefined)).toBe(
      true
    );
  });

  it('receives big lists gzip-compressed', async () => {
    // Prepare: 300 KiB of ConfigMaps
    const data = { blob: 'k8s '.repeat(25_000) };
    for (let i = 0; i < 3; i++) {
      await t.http.request(
        'create cm',
        'POST',
        `/api/v1/namespaces/${t.ns}/configmaps`,
        {
          body: JSON.stringify({ metadata: { name: `big-${i}` }, data }),
        }
      );
    }
    const before = t.http.stats.bytesRead;
    // Act
    const items = await t.http.list(
      'list cms',
      `/api/v1/namespaces/${t.ns}/configmaps`
    );
    // Assess
    const onTheWire = t.http.stats.bytesRead - before;
    expect(JSON.stringify(items).length).toBeGreaterThan(300_000);
    expect(onTheWire).toBeLessThan(30_000);
  });
});
