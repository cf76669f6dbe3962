/**
 * The pods of a run that no DaemonSet may touch: one whose labels no
 * DaemonSet selects, and one with ds-0's labels but another controller (a
 * ConfigMap, so the garbage collector keeps it), which upstream never adopts.
 */
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import type { WorkloadObserver } from './workload-plan.js';

/**
 * Creates two foreign pods on a node: one whose labels no DaemonSet
 * selects, and one with ds-0's labels but another controller (a
 * ConfigMap, so the garbage collector keeps it), which upstream never
 * adopts.
 */
export const createForeignPods = async (
  admin: KubeHttp,
  ns: string,
  node: string,
  observer: Pick<WorkloadObserver, 'markForeign'>
): Promise<void> => {
  const { metadata } = await admin.request<{
    metadata: { uid: string };
  }>('create owner', 'POST', `/api/v1/namespaces/${ns}/configmaps`, {
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'foreign-owner' },
    }),
  });
  const owned = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: 'foreign-owner',
    uid: metadata.uid,
    controller: true,
  };
  for (const [name, labels, owners] of [
    ['foreign-plain', { app: 'other' }, []],
    ['foreign-owned', { app: 'ds-0' }, [owned]],
  ] as const) {
    await admin.request(
      `create ${name}`,
      'POST',
      `/api/v1/namespaces/${ns}/pods`,
      {
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, labels, ownerReferences: owners },
          spec: {
            nodeName: node,
            containers: [{ name: 'c', image: 'foreign:1' }],
          },
        }),
      }
    );
    observer.markForeign(name);
  }
};
