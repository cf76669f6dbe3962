/**
 * The test bed itself: a real control plane with simulated nodes behaves as
 * the sync core needs (scheduler binds affinity-pinned pods, KWOK runs them,
 * graceful deletes finish).
 */
import { describe, expect, it } from 'vitest';
import { createNodes } from '#lib/local-cluster/simulated-nodes.js';
import type { Node, Pod } from '#lib/reconcile/k8s/types.js';
import { useTestNamespace } from '#test/helpers/test-namespace.js';
import { waitFor } from '../../lib/local-cluster/processes.js';

describe('local control plane', () => {
  const t = useTestNamespace('testbed');

  it('makes simulated nodes Ready', async () => {
    // Act
    const names = await createNodes(t.http, 3, { prefix: `${t.ns}-n-` });
    // Assess
    const nodes = await t.http.list<Node>('list nodes', '/api/v1/nodes');
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
    const [name] = await createNodes(t.http, 1, {
      prefix: `${t.ns}-notready-`,
      conditions,
    });
    await new Promise((r) => setTimeout(r, 1500));
    // Assess
    const node = await t.http.request<Node>(
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
    const [node] = await createNodes(t.http, 1, { prefix: `${t.ns}-pin-` });
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
    await t.http.request(
      'create pod',
      'POST',
      `/api/v1/namespaces/${t.ns}/pods`,
      {
        body: JSON.stringify(pod),
      }
    );
    // Assess
    const running = await waitFor(
      'pod Running',
      async () => {
        const p = await t.http.request<Pod>(
          'get pod',
          'GET',
          `/api/v1/namespaces/${t.ns}/pods/pinned`
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
    const [node] = await createNodes(t.http, 1, { prefix: `${t.ns}-del-` });
    await t.http.request(
      'create pod',
      'POST',
      `/api/v1/namespaces/${t.ns}/pods`,
      {
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'doomed' },
          spec: { nodeName: node, containers: [{ name: 'c', image: 'pause' }] },
        }),
      }
    );
    // Act
    await t.http.request(
      'delete pod',
      'DELETE',
      `/api/v1/namespaces/${t.ns}/pods/doomed`
    );
    // Assess
    await waitFor(
      'pod gone',
      async () => {
        const pods = await t.http.list<Pod>(
          'list pods',
          `/api/v1/namespaces/${t.ns}/pods`
        );
        return pods.some((p) => p.metadata?.name === 'doomed')
          ? undefined
          : true;
      },
      30_000
    );
  });
});
