/**
 * The product in one process (bridge → in-process queue → reconcile
 * workers), driven only by watch events (no polling): a DaemonSet converges,
 * rolls out a new template, replaces a deleted pod.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeClusterConnection } from '#lib/adapters/kube/kube-cluster-connection.js';
import type { KubeHttp } from '#lib/adapters/kube/kube-http.js';
import {
  createNodes,
  deleteNodes,
} from '#lib/local-cluster/simulated-nodes.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import { LocalRuntime } from '#lib/wiring/local-runtime.js';
import { waitFor } from '../../lib/local-cluster/processes.js';
import { FakeLogger } from '../helpers/fakes/fake-logger.js';
import {
  createAgentDaemonSet,
  createNamespace,
  deleteNamespace,
} from '../testbed/kube-fixtures.js';
import { adminHttp } from './sync-loop.js';

describe('LocalRuntime', () => {
  const ns = `inproc-${Date.now().toString(36)}`;
  const dsPath = `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`;
  let http: KubeHttp;
  let controller: LocalRuntime;
  let nodes: string[] = [];
  const logger = new FakeLogger();

  const pods = async () =>
    (await http.list<Pod>('list pods', `/api/v1/namespaces/${ns}/pods`)).filter(
      (p) => !p.metadata?.deletionTimestamp
    );
  const convergedOn = (image: string) => async () => {
    const ds = await http.request<DaemonSet>('get ds', 'GET', dsPath);
    const current = await pods();
    const ok =
      ds.status?.numberAvailable === 3 &&
      ds.status.updatedNumberScheduled === 3 &&
      (ds.status.observedGeneration ?? 0) >= (ds.metadata?.generation ?? 1) &&
      current.length === 3 &&
      current.every((p) => p.spec?.containers[0]?.image === image);
    return ok ? true : undefined;
  };

  beforeAll(async () => {
    http = adminHttp();
    controller = new LocalRuntime({
      record: {
        id: 'local',
        endpoint: '',
        caData: '',
        auth: { type: 'kubeconfig', path: '' },
        ownership: 'apps/v1',
        bridgeMode: 'watch',
      },
      connection: kubeClusterConnection(http, logger),
      logger,
    });
    await createNamespace(http, ns);
    nodes = await createNodes(http, 3, {
      prefix: `${ns}-`,
      labels: { inproc: ns },
    });
    controller.start();
  });

  afterAll(async () => {
    await controller.stop();
    await deleteNodes(http, nodes);
    await deleteNamespace(http, ns);
    http.close();
  });

  it('converges a new DaemonSet from watch events alone', async () => {
    // Act
    await createAgentDaemonSet(http, ns, { inproc: ns });
    // Assess
    await waitFor('convergence', convergedOn('agent:1'), 30_000, 200);
  });

  it('rolls out a template change', async () => {
    // Act
    await http.request('patch image', 'PATCH', dsPath, {
      body: JSON.stringify({
        spec: {
          template: { spec: { containers: [{ name: 'c', image: 'agent:2' }] } },
        },
      }),
      contentType: 'application/strategic-merge-patch+json',
    });
    // Assess
    await waitFor('rollout', convergedOn('agent:2'), 60_000, 200);
  });

  it('replaces a deleted pod', async () => {
    // Prepare
    const [victim] = await pods();
    // Act
    await http.request(
      'delete pod',
      'DELETE',
      `/api/v1/namespaces/${ns}/pods/${victim?.metadata?.name}`
    );
    // Assess
    await waitFor(
      'replacement',
      async () => {
        const current = await pods();
        return current.length === 3 &&
          !current.some((p) => p.metadata?.uid === victim?.metadata?.uid)
          ? true
          : undefined;
      },
      30_000,
      200
    );
    expect(controller.metrics.syncs).toBeGreaterThan(0);
    expect(controller.metrics.poison).toBe(0);
  });
});
