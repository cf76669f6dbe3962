/**
 * The reconciler's ClusterRole (infra/kubernetes/rbac.yaml, no wider than
 * upstream's daemon-set-controller role) is enough: the sync core converges
 * and rolls out a DaemonSet under a service account bound to it, and that
 * identity cannot do more.
 */
import { readFileSync } from 'node:fs';
import { KubeConfig, loadYaml } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KubeHttp } from '#lib/adapters/kube/kube-http.js';
import { ApiErrorReason, KubeApiError } from '#lib/errors.js';
import type { DaemonSet, Pod } from '#lib/reconcile/types.js';
import {
  createAgentDaemonSet,
  createNamespace,
  createNodes,
  deleteNamespace,
  deleteNodes,
} from '../testbed/kube-fixtures.js';
import { adminHttp, CLUSTER, realDeps, syncUntil } from './sync-loop.js';

const ROLE = new URL('../../infra/kubernetes/rbac.yaml', import.meta.url);

describe('reconciler RBAC', () => {
  const ns = `rbac-${Date.now().toString(36)}`;
  const dsPath = `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`;
  let admin: KubeHttp;
  let reconciler: KubeHttp;
  let nodes: string[] = [];

  beforeAll(async () => {
    admin = adminHttp();
    const role = loadYaml<{ metadata: { name: string } }>(
      readFileSync(ROLE, 'utf8')
    );
    await admin.request(
      'apply role',
      'POST',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      {
        body: JSON.stringify({
          ...role,
          metadata: { name: `${role.metadata.name}-${ns}` },
        }),
      }
    );
    await createNamespace(admin, ns);
    await admin.request(
      'create sa',
      'POST',
      `/api/v1/namespaces/${ns}/serviceaccounts`,
      {
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: 'reconciler' },
        }),
      }
    );
    await admin.request(
      'bind',
      'POST',
      '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      {
        body: JSON.stringify({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: `reconciler-${ns}` },
          roleRef: {
            apiGroup: 'rbac.authorization.k8s.io',
            kind: 'ClusterRole',
            name: `${role.metadata.name}-${ns}`,
          },
          subjects: [
            { kind: 'ServiceAccount', name: 'reconciler', namespace: ns },
          ],
        }),
      }
    );
    const { status } = await admin.request<{ status: { token: string } }>(
      'request token',
      'POST',
      `/api/v1/namespaces/${ns}/serviceaccounts/reconciler/token`,
      {
        body: JSON.stringify({
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: { expirationSeconds: 3600 },
        }),
      }
    );
    const kc = new KubeConfig();
    const base = adminHttpConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: base.server, caData: base.caData }],
      users: [{ name: 'reconciler', token: status.token }],
      contexts: [{ name: 'c', cluster: 'c', user: 'reconciler' }],
      currentContext: 'c',
    });
    reconciler = new KubeHttp({ kubeConfig: kc });
    nodes = await createNodes(admin, 3, {
      prefix: `${ns}-`,
      labels: { rbac: ns },
    });
    await createAgentDaemonSet(admin, ns, { rbac: ns });
  });

  afterAll(async () => {
    await admin.request(
      'unbind',
      'DELETE',
      `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/reconciler-${ns}`
    );
    await admin.request(
      'delete role',
      'DELETE',
      `/apis/rbac.authorization.k8s.io/v1/clusterroles/serverless-daemonset-reconciler-${ns}`
    );
    await deleteNodes(admin, nodes);
    await deleteNamespace(admin, ns);
    admin.close();
    reconciler.close();
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
});

/** Returns the admin kubeconfig's server and CA, for a second identity. */
const adminHttpConfig = (): { server: string; caData: string } => {
  const kc = new KubeConfig();
  kc.loadFromFile(inject('kubeconfigPath'));
  const cluster = kc.getCurrentCluster();
  return { server: cluster?.server ?? '', caData: cluster?.caData ?? '' };
};
