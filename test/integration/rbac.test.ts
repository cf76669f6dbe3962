/**
 * The reconciler's ClusterRole (infra/kubernetes/rbac.yaml, no wider than
 * upstream's daemon-set-controller role) is enough: the sync core converges
 * and rolls out a DaemonSet under a service account bound to it, and that
 * identity cannot do more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { kubeClusterConnection } from '#lib/adapters/kube/kube-cluster-connection.js';
import { ApiErrorReason, KubeApiError } from '#lib/errors.js';
import {
  createNodes,
  deleteNodes,
} from '#lib/local-cluster/simulated-nodes.js';
import {
  ADVANCED_DAEMON_SET,
  NATIVE_DAEMON_SET,
} from '#lib/reconcile/k8s/daemon-set-kind.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import { FakeLogger } from '#test/helpers/fakes/fake-logger.js';
import { ensureAdvancedDaemonSetCrd } from '../testbed/advanced-daemonset-crd.js';
import {
  createAgentDaemonSet,
  createNamespace,
  deleteNamespace,
} from '../testbed/kube-fixtures.js';
import {
  createReconcilerIdentity,
  type ReconcilerIdentity,
} from './reconciler-identity.js';
import { adminHttp, CLUSTER, realDeps, syncUntil } from './sync-loop.js';

describe('reconciler RBAC', () => {
  const ns = `rbac-${Date.now().toString(36)}`;
  const dsPath = `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`;
  let admin: KubeHttp;
  let reconciler: KubeHttp;
  let identity: ReconcilerIdentity;
  let nodes: string[] = [];

  beforeAll(async () => {
    admin = adminHttp();
    await createNamespace(admin, ns);
    identity = await createReconcilerIdentity(admin, ns);
    reconciler = identity.http;
    nodes = await createNodes(admin, 3, {
      prefix: `${ns}-`,
      labels: { rbac: ns },
    });
    await createAgentDaemonSet(admin, ns, { rbac: ns });
  });

  afterAll(async () => {
    await identity.remove();
    await deleteNodes(admin, nodes);
    await deleteNamespace(admin, ns);
    admin.close();
  });

  const converged = (image: string) => async () => {
    const ds = await admin.request<DaemonSet>('get ds', 'GET', dsPath);
    const pods = await admin.list<Pod>(
      'list pods',
      `/api/v1/namespaces/${ns}/pods`
    );
    return (
      ds.status?.numberAvailable === 3 &&
      ds.status.updatedNumberScheduled === 3 &&
      (ds.status.observedGeneration ?? 0) >= (ds.metadata?.generation ?? 1) &&
      pods
        .filter((p) => !p.metadata?.deletionTimestamp)
        .every((p) => p.spec?.containers[0]?.image === image)
    );
  };

  it('converges and rolls out under the reconciler identity', async () => {
    // Prepare
    const deps = realDeps(reconciler);
    const key = `${CLUSTER}/${ns}/agent`;
    // Act
    const created = await syncUntil(key, deps, converged('agent:1'));
    await admin.request('patch image', 'PATCH', dsPath, {
      body: JSON.stringify({
        spec: {
          template: { spec: { containers: [{ name: 'c', image: 'agent:2' }] } },
        },
      }),
      contentType: 'application/strategic-merge-patch+json',
    });
    const rolled = await syncUntil(key, deps, converged('agent:2'));
    // Assess
    expect(created.errors).toBe(0);
    expect(rolled.errors).toBe(0);
  });

  it('cannot read secrets or delete nodes', async () => {
    // Act
    const secrets = await reconciler
      .request('list secrets', 'GET', '/api/v1/secrets')
      .catch((e: unknown) => e);
    const node = await reconciler
      .request('delete node', 'DELETE', `/api/v1/nodes/${nodes[0]}`)
      .catch((e: unknown) => e);
    // Assess
    for (const err of [secrets, node]) {
      expect(err).toBeInstanceOf(KubeApiError);
      expect((err as KubeApiError).reason).toBe(ApiErrorReason.Forbidden);
    }
  });

  it.each([
    { role: 'bridge', kind: NATIVE_DAEMON_SET },
    { role: 'bridge-advanced', kind: ADVANCED_DAEMON_SET },
  ] as const)(
    'the watch-bridge’s read-only role ($role) lists and watches all it needs, and cannot write',
    async ({ role, kind }) => {
      // Prepare: a second namespace, so the bridge identity has its own binding.
      const bridgeNs = `${ns}-${role}`;
      await createNamespace(admin, bridgeNs);
      if (kind === ADVANCED_DAEMON_SET) await ensureAdvancedDaemonSetCrd(admin);
      const bridge = await createReconcilerIdentity(admin, bridgeNs, role);
      const connection = kubeClusterConnection(
        bridge.http,
        new FakeLogger(),
        kind
      );
      try {
        // Act
        const listed = await Promise.all(
          (['daemonSets', 'pods', 'nodes', 'revisions'] as const).map(
            async (r) => {
              const { resourceVersion } = await connection.watch.list(r);
              const stop = new AbortController();
              const stream = connection.watch.watch(
                r,
                resourceVersion,
                1,
                stop.signal
              );
              for await (const _ of stream) break;
              return r;
            }
          )
        );
        const create = await bridge.http
          .request('create pod', 'POST', `/api/v1/namespaces/${ns}/pods`, {
            body: JSON.stringify({
              apiVersion: 'v1',
              kind: 'Pod',
              metadata: { name: 'x' },
              spec: { containers: [{ name: 'c', image: 'c' }] },
            }),
          })
          .catch((e: unknown) => e);
        const writeStatus = await bridge.http
          .request('update status', 'PUT', `${dsPath}/status`, { body: '{}' })
          .catch((e: unknown) => e);
        // Assess
        expect(listed).toEqual(['daemonSets', 'pods', 'nodes', 'revisions']);
        for (const err of [create, writeStatus]) {
          expect(err).toBeInstanceOf(KubeApiError);
          expect((err as KubeApiError).reason).toBe(ApiErrorReason.Forbidden);
        }
      } finally {
        await bridge.remove();
        await deleteNamespace(admin, bridgeNs);
      }
    }
  );
});
