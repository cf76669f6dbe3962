/**
 * The reconciler's least-privilege identity on the test bed: the ClusterRole
 * of infra/kubernetes/rbac.yaml (upstream's daemon-set-controller rules),
 * bound to a service account, and a kubeconfig carrying that account's token.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig, loadYaml } from '@kubernetes/client-node';
import { inject } from 'vitest';
import { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';

/** The reconciler's ClusterRole per ownership mode, and the bridge's. */
const ROLES = {
  'apps/v1': new URL('../../infra/kubernetes/rbac.yaml', import.meta.url),
  'apps.dsr.dev/v1beta1': new URL(
    '../../infra/kubernetes/rbac-advanced-daemonset.yaml',
    import.meta.url
  ),
  'apps/v1+OnDelete': new URL(
    '../../infra/kubernetes/rbac-on-delete.yaml',
    import.meta.url
  ),
  bridge: new URL('../../infra/kubernetes/rbac-bridge.yaml', import.meta.url),
  viewer: new URL('../../infra/kubernetes/rbac-viewer.yaml', import.meta.url),
  'bridge-advanced': new URL(
    '../../infra/kubernetes/rbac-bridge-advanced.yaml',
    import.meta.url
  ),
} as const;

/** A ClusterRole as the API takes it. */
export interface ClusterRole {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string };
  rules?: unknown[];
}

/** A service account bound to the reconciler role. */
export interface ReconcilerIdentity {
  /** A kubeconfig file for the identity (0600, in a temporary directory). */
  kubeconfigPath: string;
  http: KubeHttp;
  /** Removes binding, role and file (the namespace is the caller's). */
  remove(): Promise<void>;
}

/** Returns the admin kubeconfig's server and CA, for a second identity. */
const adminCluster = (
  kubeconfigPath = inject('kubeconfigPath')
): { server: string; caData: string } => {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const cluster = kc.getCurrentCluster();
  return { server: cluster?.server ?? '', caData: cluster?.caData ?? '' };
};

/** Creates role, service account (in `ns`), binding and token. */
export const createReconcilerIdentity = async (
  admin: KubeHttp,
  ns: string,
  /** A role file of infra/kubernetes/, or a ClusterRole object to bind. */
  ownership: keyof typeof ROLES | ClusterRole = 'apps/v1',
  /** Outside Vitest (the campaign), the admin kubeconfig to take server and CA from. */
  adminKubeconfigPath?: string
): Promise<ReconcilerIdentity> => {
  const role =
    typeof ownership === 'string'
      ? loadYaml<ClusterRole>(readFileSync(ROLES[ownership], 'utf8'))
      : ownership;
  const roleName = `${role.metadata.name}-${ns}`;
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  await admin.request('apply role', 'POST', `${rbac}/clusterroles`, {
    body: JSON.stringify({ ...role, metadata: { name: roleName } }),
  });
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
  await admin.request('bind', 'POST', `${rbac}/clusterrolebindings`, {
    body: JSON.stringify({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `reconciler-${ns}` },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: roleName,
      },
      subjects: [{ kind: 'ServiceAccount', name: 'reconciler', namespace: ns }],
    }),
  });
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
  const { server, caData } = adminCluster(adminKubeconfigPath);
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, caData }],
    users: [{ name: 'reconciler', token: status.token }],
    contexts: [{ name: 'c', cluster: 'c', user: 'reconciler' }],
    currentContext: 'c',
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsr-identity-'));
  const kubeconfigPath = path.join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, kc.exportConfig(), { mode: 0o600 });
  const http = new KubeHttp({ kubeConfig: kc });
  return {
    kubeconfigPath,
    http,
    remove: async () => {
      http.close();
      rmSync(dir, { recursive: true, force: true });
      await admin.request(
        'unbind',
        'DELETE',
        `${rbac}/clusterrolebindings/reconciler-${ns}`
      );
      await admin.request(
        'delete role',
        'DELETE',
        `${rbac}/clusterroles/${roleName}`
      );
    },
  };
};
