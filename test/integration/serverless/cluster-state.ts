/** Reads of the test bed that the serverless end-to-end tests assert on. */
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';

/** Returns the DaemonSet `agent` of `ns`. */
export const getAgent = (admin: KubeHttp, ns: string): Promise<DaemonSet> =>
  admin.request<DaemonSet>(
    'get ds',
    'GET',
    `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`
  );

/** Returns the pods of `ns` not being deleted, grouped by node. */
export const livePodsByNode = async (
  admin: KubeHttp,
  ns: string,
  labelSelector?: string
): Promise<Map<string, Pod[]>> => {
  const pods = await admin.list<Pod>(
    'list pods',
    `/api/v1/namespaces/${ns}/pods`,
    labelSelector === undefined ? undefined : { labelSelector }
  );
  const byNode = new Map<string, Pod[]>();
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const node = pod.spec?.nodeName ?? '';
    byNode.set(node, [...(byNode.get(node) ?? []), pod]);
  }
  return byNode;
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
 * Returns whether DaemonSet `name` runs exactly one available pod of `image`
 * on each of `nodes` and on no other node, with a complete, current status.
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
  const on = (node: string) => pods.filter((p) => p.spec?.nodeName === node);
  const s = ds.status;
  const n = nodes.length;
  return (
    s?.desiredNumberScheduled === n &&
    s.currentNumberScheduled === n &&
    s.numberReady === n &&
    s.numberAvailable === n &&
    s.updatedNumberScheduled === n &&
    (s.numberMisscheduled ?? 0) === 0 &&
    s.observedGeneration === ds.metadata?.generation &&
    pods.length === n &&
    nodes.every((node) => {
      const [pod, ...more] = on(node);
      return (
        pod !== undefined &&
        more.length === 0 &&
        pod.spec?.containers[0]?.image === image &&
        isPodAvailable(pod)
      );
    })
  );
};

/** isDaemonSetConverged for DaemonSet `agent`. */
export const isConverged = (
  admin: KubeHttp,
  ns: string,
  nodes: readonly string[],
  image = 'agent:1'
): Promise<boolean> => isDaemonSetConverged(admin, ns, 'agent', nodes, image);

/** Patches the agent's container image (a template change). */
export const setAgentImage = (admin: KubeHttp, ns: string, image: string) =>
  admin.request(
    'patch image',
    'PATCH',
    `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`,
    {
      body: JSON.stringify({
        spec: { template: { spec: { containers: [{ name: 'c', image }] } } },
      }),
      contentType: 'application/strategic-merge-patch+json',
    }
  );

/**
 * Returns whether a pod serves its node: Running, Ready and not being
 * deleted (upstream `IsPodAvailable` with minReadySeconds 0, stricter about
 * deletion because a terminating pod is about to stop serving).
 */
export const isPodAvailable = (pod: Pod): boolean => {
  const conditions = pod.status?.conditions ?? [];
  const isTrue = (type: string) =>
    conditions.some((c) => c.type === type && c.status === 'True');
  // A kubelet reports Ready only once every readiness gate is True; KWOK
  // sets Ready regardless, so the gates are checked here.
  return (
    !pod.metadata?.deletionTimestamp &&
    pod.status?.phase === 'Running' &&
    isTrue('Ready') &&
    (pod.spec?.readinessGates ?? []).every((g) => isTrue(g.conditionType))
  );
};

/** Returns the UID of every live pod of `ns`, by node. */
export const podUidsByNode = async (
  admin: KubeHttp,
  ns: string
): Promise<Record<string, string[]>> => {
  const byNode = await livePodsByNode(admin, ns);
  return Object.fromEntries(
    [...byNode].map(([node, pods]) => [
      node,
      pods.map((p) => p.metadata?.uid ?? '').sort(),
    ])
  );
};

/**
 * Sets a pod's phase to Failed through the status subresource, as a kubelet
 * does when the pod's containers have failed for good.
 */
export const failPod = (admin: KubeHttp, ns: string, name: string) =>
  admin.request(
    `fail pod ${name}`,
    'PATCH',
    `/api/v1/namespaces/${ns}/pods/${name}/status`,
    {
      body: JSON.stringify({
        status: { phase: 'Failed', message: 'e2e: container exited 1' },
      }),
      contentType: 'application/merge-patch+json',
    }
  );

/** Deletes a pod, as a user does. */
export const deletePod = (admin: KubeHttp, ns: string, name: string) =>
  admin.request(
    `delete pod ${name}`,
    'DELETE',
    `/api/v1/namespaces/${ns}/pods/${name}`
  );

/** Merge-patches a node (labels under `metadata`, taints under `spec`). */
export const patchNode = (admin: KubeHttp, name: string, patch: object) =>
  admin.request(`patch node ${name}`, 'PATCH', `/api/v1/nodes/${name}`, {
    body: JSON.stringify(patch),
    contentType: 'application/merge-patch+json',
  });
