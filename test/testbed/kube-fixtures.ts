/** Objects the integration tests create through the raw client. */
import type { KubeHttp } from '#lib/adapters/kube/kube-http.js';
import type { Node, Taint } from '#lib/reconcile/types.js';
import { waitFor } from './processes.js';

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

/** Creates simulated nodes `<prefix>0..n-1` and waits until all are Ready. */
export const createNodes = async (
  http: KubeHttp,
  count: number,
  spec: { prefix: string; labels?: Record<string, string>; taints?: Taint[] }
): Promise<string[]> => {
  const names = Array.from({ length: count }, (_, i) => `${spec.prefix}${i}`);
  await Promise.all(
    names.map((name) =>
      http.request(`create node ${name}`, 'POST', '/api/v1/nodes', {
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Node',
          metadata: {
            name,
            labels: {
              'kubernetes.io/hostname': name,
              'kubernetes.io/os': 'linux',
              type: 'kwok',
              ...spec.labels,
            },
            annotations: { 'kwok.x-k8s.io/node': 'fake' },
          },
          spec: spec.taints ? { taints: spec.taints } : {},
        }),
      })
    )
  );
  await waitFor(
    `${count} nodes Ready`,
    async () => {
      const nodes = await http.list<Node>('list nodes', '/api/v1/nodes');
      const ready = nodes.filter(
        (n) =>
          names.includes(n.metadata?.name ?? '') &&
          n.status?.conditions?.some(
            (c) => c.type === 'Ready' && c.status === 'True'
          )
      );
      return ready.length === count ? true : undefined;
    },
    60_000,
    250
  );
  return names;
};

/** Deletes nodes by name. */
export const deleteNodes = async (http: KubeHttp, names: readonly string[]) => {
  await Promise.all(
    names.map((n) =>
      http.request(`delete node ${n}`, 'DELETE', `/api/v1/nodes/${n}`)
    )
  );
};
