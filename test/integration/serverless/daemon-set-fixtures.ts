/**
 * DaemonSets and pods of a scenario's namespace, as the serverless
 * end-to-end tests create, read and change them.
 */
import type { KubeHttp } from '#lib/adapters/kube/kube-http.js';
import type { DaemonSet, Pod } from '#lib/reconcile/types.js';

/**
 * Creates DaemonSet `name` (pods labelled `app=<name>`, one container `c`)
 * on the nodes carrying `nodeSelector`; RollingUpdate, maxUnavailable 1.
 */
export const createDaemonSet = async (
  admin: KubeHttp,
  ns: string,
  name: string,
  nodeSelector: Record<string, string>,
  image = 'agent:1'
): Promise<void> => {
  await admin.request(
    `create ds ${name}`,
    'POST',
    `/apis/apps/v1/namespaces/${ns}/daemonsets`,
    {
      body: JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name },
        spec: {
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: { nodeSelector, containers: [{ name: 'c', image }] },
          },
        },
      }),
    }
  );
};

/** Returns the live pods (not being deleted) of DaemonSet `name`. */
export const livePodsOf = async (
  admin: KubeHttp,
  ns: string,
  name: string
): Promise<Pod[]> => {
  const pods = await admin.list<Pod>(
    `list pods of ${name}`,
    `/api/v1/namespaces/${ns}/pods`,
    { labelSelector: `app=${name}` }
  );
  return pods.filter((p) => !p.metadata?.deletionTimestamp);
};

/**
 * Returns whether DaemonSet `name` runs exactly one available pod of
 * `image` on each of `nodes` and on no other node, with a complete, current
 * status (cluster-state.ts `isConverged`, for any DaemonSet name).
 */
export const isDaemonSetConverged = async (
  admin: KubeHttp,
  ns: string,
  name: string,
  nodes: readonly string[],
  image = 'agent:1'
): Promise<boolean> => {
  const ds = await admin.request<DaemonSet>(
    `get ds ${name}`,
    'GET',
    `/apis/apps/v1/namespaces/${ns}/daemonsets/${name}`
  );
  const pods = await livePodsOf(admin, ns, name);
  const s = ds.status;
  const n = nodes.length;
  const on = (node: string) => pods.filter((p) => p.spec?.nodeName === node);
  return (
    s?.desiredNumberScheduled === n &&
    s.currentNumberScheduled === n &&
    s.numberReady === n &&
    s.numberAvailable === n &&
    s.updatedNumberScheduled === n &&
    (s.numberMisscheduled ?? 0) === 0 &&
    s.observedGeneration === ds.metadata?.generation &&
    pods.length === n &&
    nodes.every(
      (node) =>
        on(node).length === 1 &&
        on(node)[0]?.spec?.containers[0]?.image === image
    )
  );
};

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
