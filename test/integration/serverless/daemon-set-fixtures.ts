/**
 * DaemonSets and pods of a scenario's namespace, as the serverless
 * end-to-end tests create, read and change them.
 */
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { advancedDaemonSetsPath } from '../../testbed/advanced-daemonset-crd.js';
import { livePodsOf } from './cluster-state.js';

/** Deletes the live pod of DaemonSet `name` on `node`; returns its name. */
export const deletePodOn = async (
  admin: KubeHttp,
  ns: string,
  name: string,
  node: string
): Promise<string> => {
  const pod = (await livePodsOf(admin, ns, name)).find(
    (p) => p.spec?.nodeName === node
  );
  const podName = pod?.metadata?.name;
  if (podName === undefined) throw new Error(`no pod of ${name} on ${node}`);
  await admin.request(
    `delete pod ${podName}`,
    'DELETE',
    `/api/v1/namespaces/${ns}/pods/${podName}`
  );
  return podName;
};

/** Sets (or, with null, removes) a label of a node. */
export const labelNode = async (
  admin: KubeHttp,
  node: string,
  labels: Record<string, string | null>
): Promise<void> => {
  await admin.request(`label ${node}`, 'PATCH', `/api/v1/nodes/${node}`, {
    body: JSON.stringify({ metadata: { labels } }),
    contentType: 'application/merge-patch+json',
  });
};

/** Creates AdvancedDaemonSet `agent` (image agent:1) on the nodes of `nodeSelector`. */
export const createAgentAdvancedDaemonSet = (
  admin: KubeHttp,
  ns: string,
  nodeSelector: Record<string, string>,
  maxUnavailable: number
) =>
  admin.request('create ads', 'POST', advancedDaemonSetsPath(ns), {
    body: JSON.stringify({
      apiVersion: 'apps.dsr.dev/v1beta1',
      kind: 'AdvancedDaemonSet',
      metadata: { name: 'agent' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: {
          metadata: { labels: { app: 'agent' } },
          spec: { nodeSelector, containers: [{ name: 'c', image: 'agent:1' }] },
        },
        updateStrategy: { rollingUpdate: { maxUnavailable } },
      },
    }),
  });
