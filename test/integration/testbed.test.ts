/**
 * The test bed itself: a real control plane with simulated nodes behaves as
 * the sync core needs (scheduler binds affinity-pinned pods, KWOK runs them,
 * graceful deletes finish).
 */
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KubeHttp } from '#lib/adapters/kube/kube-http.js';
import { createNodes } from '#lib/local-cluster/simulated-nodes.js';
import type { Node, Pod } from '#lib/reconcile/k8s/types.js';
import { waitFor } from '../../lib/local-cluster/processes.js';
import { createNamespace, deleteNamespace } from '../testbed/kube-fixtures.js';

describe('local control plane', () => {
  let http: KubeHttp;
  const ns = `testbed-${Date.now().toString(36)}`;

  beforeAll(async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(inject('kubeconfigPath'));
    http = new KubeHttp({ kubeConfig: kc });
    await createNamespace(http, ns);
  });

  afterAll(async () => {
    await deleteNamespace(http, ns);
    http.close();
  });

  it('makes simulated nodes Ready', async () => {
    // Act
    const names = await createNodes(http, 3, { prefix: `${ns}-n-` });
    // Assess
    const nodes = await http.list<Node>('list nodes', '/api/v1/nodes');
    const ready = nodes.filter(
      (n) =>
        names.includes(n.metadata?.name ?? '') &&
        n.status?.conditions?.some(
          (c) => c.type === 'Ready' && c.status === 'True'
        )
    );
    expect(ready).toHaveLength(3);
  });

  it('keeps the conditions a test gives a node', async () => {
    // Prepare
    const conditions = [
      { type: 'Ready', status: 'False', reason: 'KubeletNotReady' },
    ];
    // Act
    const [name] = await createNodes(http, 1, {
      prefix: `${ns}-notready-`,
      conditions,
    });
    await new Promise((r) => setTimeout(r, 1500));
    // Assess
    const node = await http.request<Node>(
      'get node',
      'GET',
      `/api/v1/nodes/${name}`
    );
    expect(
      node.status?.conditions?.find((c) => c.type === 'Ready')?.status
    ).toBe('False');
  });

  it('binds a pod pinned by node affinity and runs it', async () => {
    // Prepare
    const [node] = await createNodes(http, 1, { prefix: `${ns}-pin-` });
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'pinned', labels: { app: 'pinned' } },
      spec: {
        containers: [{ name: 'c', image: 'pause' }],
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                {
                  matchFields: [
                    { key: 'metadata.name', operator: 'In', values: [node] },
                  ],
                },
              ],
            },
          },
        },
      },
    };
    // Act
    await http.request('create pod', 'POST', `/api/v1/namespaces/${ns}/pods`, {
      body: JSON.stringify(pod),
    });
    // Assess
    const running = await waitFor(
      'pod Running',
      async () => {
        const p = await http.request<Pod>(
          'get pod',
          'GET',
          `/api/v1/namespaces/${ns}/pods/pinned`
        );
        return p.status?.phase === 'Running' ? p : undefined;
      },
      30_000
    );
    expect(running.spec?.nodeName).toBe(node);
    expect(
      running.status?.conditions?.find((c) => c.type === 'Ready')?.status
    ).toBe('True');
  });

  it('finishes a graceful delete', async () => {
    // Prepare
    const [node] = await createNodes(http, 1, { prefix: `${ns}-del-` });
    await http.request('create pod', 'POST', `/api/v1/namespaces/${ns}/pods`, {
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'doomed' },
        spec: { nodeName: node, containers: [{ name: 'c', image: 'pause' }] },
      }),
    });
    // Act
    await http.request(
      'delete pod',
      'DELETE',
      `/api/v1/namespaces/${ns}/pods/doomed`
    );
    // Assess
    await waitFor(
      'pod gone',
      async () => {
        const pods = await http.list<Pod>(
          'list pods',
          `/api/v1/namespaces/${ns}/pods`
        );
        return pods.some((p) => p.metadata?.name === 'doomed')
          ? undefined
          : true;
      },
      30_000
    );
  });
});
