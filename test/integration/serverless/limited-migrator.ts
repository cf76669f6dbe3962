/**
 * A user whose RBAC lets it delete an apps/v1 DaemonSet and release its pods
 * but not create the AdvancedDaemonSet: the 403 that `migrate` must meet
 * before it deletes anything. Its service account lives in a namespace of
 * its own (the scenario's already holds the reconciler's).
 */
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { createReconcilerIdentity } from '../reconciler-identity.js';
import { recordingPlugin } from './recording-plugin.js';

/** Returns a recording plugin acting as that user, and its removal. */
export const limitedMigrator = async (admin: KubeHttp, ns: string) => {
  const home = `${ns}-rbac`.slice(0, 63);
  await admin.request('create ns', 'POST', '/api/v1/namespaces', {
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: home },
    }),
  });
  const read = ['get', 'list'];
  const identity = await createReconcilerIdentity(admin, home, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'migrator-without-create' },
    rules: [
      {
        apiGroups: ['apps'],
        resources: ['daemonsets'],
        verbs: [...read, 'patch', 'delete'],
      },
      {
        apiGroups: ['apps.dsr.dev'],
        resources: ['advanceddaemonsets'],
        verbs: read,
      },
      { apiGroups: [''], resources: ['pods'], verbs: [...read, 'patch'] },
      {
        apiGroups: ['apps'],
        resources: ['controllerrevisions'],
        verbs: [...read, 'patch'],
      },
    ],
  });
  return {
    plugin: await recordingPlugin(identity.kubeconfigPath),
    remove: async () => {
      await identity.remove();
      await admin.request('delete ns', 'DELETE', `/api/v1/namespaces/${home}`);
    },
  };
};
