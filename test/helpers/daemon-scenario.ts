/**
 * Small fixture helpers for the syncDaemonSet scenario tests, ported from
 * upstream daemon_controller_test.go (`resourcePodSpec`, `setNodeTaint`,
 * `newUpdateSurge`, the `ds.Spec.UpdateStrategy = *strategy` idiom) plus
 * read-outs of the fake cluster's resulting state.
 */
import { expect } from 'vitest';
import { isControlledBy } from '#lib/reconcile/k8s/controller-ref.js';
import type {
  DaemonSet,
  Node,
  Pod,
  PodSpec,
  Taint,
} from '#lib/reconcile/k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '#lib/reconcile/k8s/types.js';
import { getNodesToDaemonPods } from '#lib/reconcile/nodes-to-daemon-pods.js';
import { newDaemonSet, rfc3339 } from './builders.js';
import { expectSync, type Harness } from './harness.js';

export type UpdateStrategy = NonNullable<DaemonSet['spec']>['updateStrategy'];

/** Upstream `newDaemonSet(name)` followed by `ds.Spec.UpdateStrategy = *s`. */
export const newDaemonSetWith = (
  strategy: UpdateStrategy,
  name = 'foo',
  namespace = 'default'
): DaemonSet => {
  const ds = newDaemonSet(name, namespace);
  if (ds.spec) ds.spec.updateStrategy = structuredClone(strategy);
  return ds;
};

/** Upstream `newUpdateSurge(maxSurge)`: RollingUpdate, maxUnavailable 0. */
export const surgeStrategy = (maxSurge: number | string): UpdateStrategy => ({
  type: 'RollingUpdate',
  rollingUpdate: { maxUnavailable: 0, maxSurge },
});

/** Returns the DaemonSet's pod template spec, for in-place fixture edits. */
export const templateSpec = (ds: DaemonSet): PodSpec => {
  const spec = ds.spec?.template.spec;
  if (spec === undefined) throw new Error('fixture DaemonSet has no spec');
  return spec;
};

/** Upstream `resourcePodSpec(nodeName, memory, cpu)`. */
export const resourcePodSpec = (
  nodeName: string,
  memory: string,
  cpu: string
): PodSpec => ({
  ...(nodeName === '' ? {} : { nodeName }),
  containers: [
    {
      name: 'foo',
      resources: { requests: { memory, cpu, pods: '100' } },
    },
  ],
});

/** Upstream `allocatableResources(memory, cpu)` applied to a node. */
export const withAllocatable = (
  node: Node,
  memory: string,
  cpu: string
): Node => {
  node.status = { ...node.status, allocatable: { memory, cpu, pods: '100' } };
  return node;
};

/** Upstream `setNodeTaint`. */
export const withTaints = (node: Node, taints: Taint[]): Node => {
  node.spec = { ...node.spec, taints };
  return node;
};

/** Replaces the node's conditions. */
export const withConditions = (
  node: Node,
  conditions: { type: string; status: string }[]
): Node => {
  node.status = { ...node.status, conditions };
  return node;
};

/** Sets `creationTimestamp` to `time.Unix(unixSeconds, 0)`. */
export const createdAt = (pod: Pod, unixSeconds: number): Pod => {
  pod.metadata = {
    ...pod.metadata,
    creationTimestamp: rfc3339(unixSeconds * 1000),
  };
  return pod;
};

/** Drops the revision hash label: the pod runs an older template. */
export const withoutHash = (pod: Pod): Pod => {
  const labels = { ...pod.metadata?.labels };
  delete labels[CONTROLLER_REVISION_HASH_LABEL];
  pod.metadata = { ...pod.metadata, labels };
  return pod;
};

/** Sets the Ready condition to False. */
export const markPodNotReady = (pod: Pod): Pod => {
  pod.status = {
    ...pod.status,
    conditions: [{ type: 'Ready', status: 'False' }],
  };
  return pod;
};

/** Returns the pods of the fake cluster the DaemonSet controls, by node. */
export const daemonPodsByNode = (
  h: Harness,
  ds: DaemonSet
): Map<string, Pod[]> =>
  getNodesToDaemonPods(
    h.cluster.pods.filter((p) => isControlledBy(p, ds)),
    true
  );

/** Returns how many pods the DaemonSet controls on each node. */
export const podCountsByNode = (
  h: Harness,
  ds: DaemonSet
): Record<string, number> =>
  Object.fromEntries(
    [...daemonPodsByNode(h, ds)]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([node, pods]) => [node, pods.length])
  );

/** `expectSync` that also asserts the sync succeeded; returns its result. */
export const expectSyncOk = async (
  h: Harness,
  ds: DaemonSet,
  want: { creates: number; deletes: number; events: number }
) => {
  const { result, error } = await expectSync(h, ds, want);
  expect(error).toBeUndefined();
  return result;
};
