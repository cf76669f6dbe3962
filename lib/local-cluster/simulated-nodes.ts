/**
 * Simulated (KWOK) nodes of the local control plane: created through the raw
 * client, labelled like a kubelet would, and awaited until Ready.
 */
import type { KubeHttp } from '../adapters/kube/client/kube-http.js';
import type { Node, Taint } from '../reconcile/k8s/types.js';
import { waitFor } from './processes.js';

/**
 * Label of nodes KWOK leaves alone: their status stays what the test wrote
 * (e.g. Ready=False), and pods bound to them never run.
 */
export const UNMANAGED_LABEL = 'dsr.test/unmanaged';

/** Capacity of a simulated node (KWOK's defaults). */
const SIMULATED_CAPACITY = { cpu: '1k', memory: '1Ti', pods: '1M' };

/** What a simulated node looks like. */
export interface NodeSpec {
  prefix: string;
  labels?: Record<string, string>;
  taints?: Taint[];
  /** Fixed conditions; the node is then not managed by KWOK. */
  conditions?: NonNullable<Node['status']>['conditions'];
}

const hasConditions = (n: Node, want: NodeSpec['conditions']): boolean =>
  want === undefined
    ? (n.status?.conditions ?? []).some(
        (c) => c.type === 'Ready' && c.status === 'True'
      )
    : want.every((w) =>
        (n.status?.conditions ?? []).some(
          (c) => c.type === w.type && c.status === w.status
        )
      );

/**
 * Creates simulated nodes `<prefix>0..n-1` and waits until each is Ready, or
 * shows the conditions the spec gives it.
 */
export const createNodes = async (
  http: KubeHttp,
  count: number,
  spec: NodeSpec
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
              ...(spec.conditions ? { [UNMANAGED_LABEL]: 'true' } : {}),
              ...spec.labels,
            },
            annotations: { 'kwok.x-k8s.io/node': 'fake' },
          },
          spec: spec.taints ? { taints: spec.taints } : {},
        }),
      })
    )
  );
  if (spec.conditions) {
    await Promise.all(
      names.map((name) =>
        http.request(
          `set status of ${name}`,
          'PATCH',
          `/api/v1/nodes/${name}/status`,
          {
            body: JSON.stringify({
              status: {
                conditions: spec.conditions,
                // What KWOK would have written: room for every pod.
                allocatable: SIMULATED_CAPACITY,
                capacity: SIMULATED_CAPACITY,
              },
            }),
            contentType: 'application/merge-patch+json',
          }
        )
      )
    );
  }
  await waitFor(
    `${count} nodes ${spec.conditions ? 'with their conditions' : 'Ready'}`,
    async () => {
      const nodes = await http.list<Node>('list nodes', '/api/v1/nodes');
      const done = nodes.filter(
        (n) =>
          names.includes(n.metadata?.name ?? '') &&
          hasConditions(n, spec.conditions)
      );
      return done.length === count ? true : undefined;
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
