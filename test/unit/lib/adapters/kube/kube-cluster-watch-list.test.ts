/**
 * KubeClusterWatch.list keeps of each listed node what the node schema
 * names (name, resourceVersion, labels, taints), page by page, so a relist
 * never holds thousands of whole nodes; DaemonSets are kept whole. A real
 * HTTPS server on loopback answers with pages and continue tokens.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { KubeClusterWatch } from '#lib/adapters/kube/kube-cluster-watch.js';
import { NATIVE_DAEMON_SET } from '#lib/reconcile/k8s/daemon-set-kind.js';
import type { KubeObject, Node } from '#lib/reconcile/k8s/types.js';
import { eksLikeNode } from '#test/helpers/eks-like-node.js';
import { loopbackAccess } from '#test/helpers/loopback-access.js';
import { selfSignedKeyPair } from '#test/helpers/self-signed-pem.js';
import { newDaemonSet } from '../../../../helpers/builders.js';

const NODES = 1_200;

/** The page of `items` a list request asks for (limit, continue). */
const pageOf = (items: KubeObject[], url: URL) => {
  const limit = Number(url.searchParams.get('limit'));
  const from = Number(url.searchParams.get('continue') ?? 0);
  const next = from + limit;
  return {
    items: items.slice(from, next),
    metadata: {
      resourceVersion: '5000',
      ...(next < items.length ? { continue: String(next) } : {}),
    },
  };
};

describe('KubeClusterWatch.list', () => {
  const pair = selfSignedKeyPair('127.0.0.1', '127.0.0.1');
  const nodes = Array.from({ length: NODES }, (_, i) => eksLikeNode(i));
  const daemonSets = [newDaemonSet('a')];
  let server: https.Server;
  let http: KubeHttp;
  let watch: KubeClusterWatch;
  let pages = 0;

  beforeAll(async () => {
    server = https.createServer(pair, (req, res) => {
      const url = new URL(req.url ?? '/', 'https://127.0.0.1');
      const all = url.pathname === '/api/v1/nodes' ? nodes : daemonSets;
      pages++;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(pageOf(all, url)));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const access = loopbackAccess(port, pair.cert);
    http = new KubeHttp({ kubeConfig: access, timeoutMs: 10_000 });
    watch = new KubeClusterWatch({ http, kind: NATIVE_DAEMON_SET });
  });

  afterAll(async () => {
    http.close();
    await new Promise((r) => server.close(r));
  });

  it('keeps of every listed node only its name, version, labels and taints', async () => {
    // Prepare
    pages = 0;
    // Act
    const { items, resourceVersion } = await watch.list<Node>('nodes');
    // Assess: three pages of 500, each node its projection.
    expect(pages).toBe(3);
    expect(resourceVersion).toBe('5000');
    expect(items).toHaveLength(NODES);
    expect(items[10]).toEqual({
      metadata: {
        name: nodes[10]?.metadata?.name,
        resourceVersion: '1010',
        labels: nodes[10]?.metadata?.labels,
      },
      spec: {
        taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
      },
    });
    expect(items[11]).toEqual({
      metadata: {
        name: nodes[11]?.metadata?.name,
        resourceVersion: '1011',
        labels: nodes[11]?.metadata?.labels,
      },
      spec: {},
    });
  });

  it('keeps listed DaemonSets whole', async () => {
    // Act
    const { items } = await watch.list('daemonSets');
    // Assess
    expect(items).toEqual(daemonSets);
  });
});
