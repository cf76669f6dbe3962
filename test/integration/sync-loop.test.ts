/**
 * End to end without a queue: the sync core, driven in a loop, converges a
 * DaemonSet on KWOK nodes of a real control plane, rolls a template change
 * within maxUnavailable, follows a NoExecute taint and a new node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import {
  createNodes,
  deleteNodes,
} from '#lib/local-cluster/simulated-nodes.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import type { SyncDeps } from '#lib/sync/context.js';
import {
  createAgentDaemonSet,
  createNamespace,
  deleteNamespace,
} from '../testbed/kube-fixtures.js';
import { adminHttp, CLUSTER, realDeps, syncUntil } from './sync-loop.js';

describe('sync core in a loop against a real control plane', () => {
  const ns = `loop-${Date.now().toString(36)}`;
  const key = `${CLUSTER}/${ns}/agent`;
  const dsPath = `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`;
  let http: KubeHttp;
  let deps: SyncDeps;
  let nodes: string[] = [];

  const getDs = () => http.request<DaemonSet>('get ds', 'GET', dsPath);
  const pods = async () =>
    (await http.list<Pod>('list pods', `/api/v1/namespaces/${ns}/pods`)).filter(
      (p) => !p.metadata?.deletionTimestamp
    );
  const isReady = (p: Pod) =>
    p.status?.conditions?.some(
      (c) => c.type === 'Ready' && c.status === 'True'
    ) ?? false;
  const converged = (want: number) => async () => {
    const ds = await getDs();
    const s = ds.status;
    return (
      (s?.observedGeneration ?? 0) >= (ds.metadata?.generation ?? 1) &&
      s?.desiredNumberScheduled === want &&
      s.currentNumberScheduled === want &&
      s.numberReady === want &&
      s.numberAvailable === want &&
      s.updatedNumberScheduled === want
    );
  };

  beforeAll(async () => {
    http = adminHttp();
    deps = realDeps(http);
    await createNamespace(http, ns);
    nodes = await createNodes(http, 5, {
      prefix: `${ns}-`,
      labels: { loop: ns },
    });
    await createAgentDaemonSet(http, ns, { loop: ns });
  });

  afterAll(async () => {
    await deleteNodes(http, nodes);
    await deleteNamespace(http, ns);
    http.close();
  });

  it('converges on 5 nodes with complete status', async () => {
    // Act
    const run = await syncUntil(key, deps, converged(5));
    // Assess
    const all = await pods();
    expect(all).toHaveLength(5);
    expect(new Set(all.map((p) => p.spec?.nodeName))).toEqual(new Set(nodes));
    expect(run.errors).toBe(0);
  });

  it('rolls a template change out without exceeding maxUnavailable', async () => {
    // Prepare
    await http.request('patch image', 'PATCH', dsPath, {
      body: JSON.stringify({
        spec: {
          template: { spec: { containers: [{ name: 'c', image: 'agent:2' }] } },
        },
      }),
      contentType: 'application/strategic-merge-patch+json',
    });
    let worstUnavailable = 0;
    const observe = async () => {
      const ready = new Set(
        (await pods()).filter(isReady).map((p) => p.spec?.nodeName)
      );
      worstUnavailable = Math.max(
        worstUnavailable,
        nodes.filter((n) => !ready.has(n)).length
      );
    };
    // Act
    await syncUntil(key, deps, converged(5), { observe, intervalMs: 100 });
    // Assess
    const images = (await pods()).map((p) => p.spec?.containers[0]?.image);
    expect(images).toEqual(Array(5).fill('agent:2'));
    expect(worstUnavailable).toBeLessThanOrEqual(1);
    const revisions = await http.list(
      'list revisions',
      `/apis/apps/v1/namespaces/${ns}/controllerrevisions`
    );
    expect(revisions).toHaveLength(2);
  });

  it('removes the pod from a node tainted NoExecute', async () => {
    // Prepare
    const tainted = nodes[0] as string;
    await http.request('taint', 'PATCH', `/api/v1/nodes/${tainted}`, {
      body: JSON.stringify({
        spec: { taints: [{ key: 'evict', value: 'yes', effect: 'NoExecute' }] },
      }),
      contentType: 'application/merge-patch+json',
    });
    // Act
    await syncUntil(key, deps, converged(4));
    // Assess
    const onTainted = (await pods()).filter(
      (p) => p.spec?.nodeName === tainted
    );
    expect(onTainted).toEqual([]);
  });

  it('gives a node added later its pod', async () => {
    // Prepare
    const added = await createNodes(http, 1, {
      prefix: `${ns}-late-`,
      labels: { loop: ns },
    });
    nodes.push(...added);
    // Act
    await syncUntil(key, deps, converged(5));
    // Assess
    expect(
      (await pods()).filter((p) => p.spec?.nodeName === added[0])
    ).toHaveLength(1);
  });
});
