/** Objects the integration tests create through the raw client. */
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';

/** Creates a namespace. */
export const createNamespace = async (http: KubeHttp, name: string) => {
  await http.request('create namespace', 'POST', '/api/v1/namespaces', {
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    }),
  });
};

/** Deletes a namespace (the namespace controller empties it). */
export const deleteNamespace = async (http: KubeHttp, name: string) => {
  await http.request(
    'delete namespace',
    'DELETE',
    `/api/v1/namespaces/${name}`
  );
};

/**
 * Waits until no namespace is being deleted, for at most `timeoutMs`:
 * earlier tests delete theirs without waiting, and their DaemonSets and
 * pods go on changing (pod garbage collection, the namespace controller)
 * while a later test runs. Returns the namespaces still terminating at the
 * end (none when the wait succeeded): one held by a finalizer nobody
 * removes would never go, and is the caller's to report.
 */
export const awaitNoTerminatingNamespaces = async (
  http: KubeHttp,
  timeoutMs: number
): Promise<string[]> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = await http.request<{
      items: { metadata: { name: string; deletionTimestamp?: string } }[];
    }>('list namespaces', 'GET', '/api/v1/namespaces');
    const terminating = list.items
      .filter((n) => n.metadata.deletionTimestamp !== undefined)
      .map((n) => n.metadata.name);
    if (terminating.length === 0 || Date.now() >= deadline) return terminating;
    await new Promise((r) => setTimeout(r, 500));
  }
};

/** What a test DaemonSet may set beyond selector and template. */
export type DaemonSetSpecExtras = {
  updateStrategy?: unknown;
  minReadySeconds?: number;
};

/**
 * Creates DaemonSet `name` (pods labelled `app=<name>`, one container `c`)
 * restricted to nodes carrying `nodeSelector`.
 */
export const createDaemonSet = async (
  http: KubeHttp,
  namespace: string,
  name: string,
  nodeSelector: Record<string, string>,
  image = 'agent:1',
  spec: DaemonSetSpecExtras = {}
) => {
  await http.request(
    `create ds ${name}`,
    'POST',
    `/apis/apps/v1/namespaces/${namespace}/daemonsets`,
    {
      body: JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name },
        spec: {
          ...spec,
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

/** Creates DaemonSet `agent` (see createDaemonSet). */
export const createAgentDaemonSet = (
  http: KubeHttp,
  namespace: string,
  nodeSelector: Record<string, string>,
  image = 'agent:1',
  spec: DaemonSetSpecExtras = {}
) => createDaemonSet(http, namespace, 'agent', nodeSelector, image, spec);

/**
 * Creates ResourceQuota `name` allowing `hard` pods in `namespace`, `used`
 * of them taken: no quota controller runs in the test bed, so the status it
 * would write is set here; admission then counts each admitted pod.
 */
export const createPodQuota = async (
  http: KubeHttp,
  namespace: string,
  { name, hard, used }: { name: string; hard: number; used: number }
) => {
  const path = `/api/v1/namespaces/${namespace}/resourcequotas`;
  const pods = { pods: String(hard) };
  await http.request('create quota', 'POST', path, {
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name },
      spec: { hard: pods },
    }),
  });
  await http.request('set quota status', 'PATCH', `${path}/${name}/status`, {
    body: JSON.stringify({
      status: { hard: pods, used: { pods: String(used) } },
    }),
    contentType: 'application/merge-patch+json',
  });
};
