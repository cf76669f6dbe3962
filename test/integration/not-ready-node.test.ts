/**
 * Upstream IT TestNotReadyNodeDaemonDoesLaunchPod on the real control plane:
 * a node whose Ready condition is False (and that carries no taint) still
 * gets its daemon pod, bound by the scheduler.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import {
  createNodes,
  deleteNodes,
} from '#lib/local-cluster/simulated-nodes.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import { waitFor } from '../../lib/local-cluster/processes.js';
import {
  createAgentDaemonSet,
  createNamespace,
  deleteNamespace,
} from '../testbed/kube-fixtures.js';
import { adminHttp, CLUSTER, realDeps, syncUntil } from './sync-loop.js';

describe('TestNotReadyNodeDaemonDoesLaunchPod (integration)', () => {
  const ns = `notready-${Date.now().toString(36)}`;
  let http: KubeHttp;
  let nodes: string[] = [];

  beforeAll(async () => {
    http = adminHttp();
    await createNamespace(http, ns);
    nodes = await createNodes(http, 1, {
      prefix: `${ns}-`,
      labels: { notready: ns },
      conditions: [
        { type: 'Ready', status: 'False', reason: 'KubeletNotReady' },
      ],
    });
    await createAgentDaemonSet(http, ns, { notready: ns }, 'i');
  });

  afterAll(async () => {
    await deleteNodes(http, nodes);
    await deleteNamespace(http, ns);
    http.close();
  });

  it('creates a pod on a NotReady node and the scheduler binds it there', async () => {
    // Act
    await syncUntil(`${CLUSTER}/${ns}/agent`, realDeps(http), async () => {
      const ds = await http.request<DaemonSet>(
        'get ds',
        'GET',
        `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`
      );
      return ds.status?.currentNumberScheduled === 1;
    });
    // Assess
    const bound = await waitFor(
      'pod bound',
      async () => {
        const [pod] = await http.list<Pod>(
          'list pods',
          `/api/v1/namespaces/${ns}/pods`
        );
        return pod?.spec?.nodeName ? pod : undefined;
      },
      20_000
    );
    expect(bound.spec?.nodeName).toBe(nodes[0]);
    const ds = await http.request<DaemonSet>(
      'get ds',
      'GET',
      `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`
    );
    expect(ds.status).toMatchObject({
      desiredNumberScheduled: 1,
      currentNumberScheduled: 1,
      numberReady: 0,
    });
  });
});
