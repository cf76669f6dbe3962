/**
 * Fixture builders ported from upstream's daemon_controller_test.go
 * (`newDaemonSet`, `newNode`, `addNodes`, `newPod`, `addPods`,
 * `addFailedPods`, `markPodReady`, `newRollingUpdateStrategy`).
 */
import { randomUUID } from 'node:crypto';
import type {
  DaemonSet,
  Node,
  Pod,
  PodTemplateSpec,
} from '#lib/reconcile/k8s/types.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  TEMPLATE_GENERATION_ANNOTATION,
} from '#lib/reconcile/k8s/types.js';
import { computeHash } from '#lib/reconcile/revision-hash.js';

export const simpleDaemonSetLabel = {
  name: 'simple-daemon',
  type: 'production',
};
export const simpleDaemonSetLabel2 = { name: 'simple-daemon', type: 'test' };
export const simpleNodeLabel = { color: 'blue', speed: 'fast' };
export const simpleNodeLabel2 = { color: 'red', speed: 'fast' };

/** Returns a deep copy (fixtures are plain JSON). */
export const clone = <T>(value: T): T => structuredClone(value);

/** Upstream `newDaemonSet`: OnDelete, revisionHistoryLimit 2, generation 1. */
export const newDaemonSet = (
  name: string,
  namespace = 'default'
): DaemonSet => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: {
    name,
    namespace,
    uid: randomUUID(),
    generation: 1,
    resourceVersion: '1',
    annotations: { [TEMPLATE_GENERATION_ANNOTATION]: '1' },
  },
  spec: {
    revisionHistoryLimit: 2,
    updateStrategy: { type: 'OnDelete' },
    selector: { matchLabels: { ...simpleDaemonSetLabel } },
    template: {
      metadata: { labels: { ...simpleDaemonSetLabel } },
      spec: {
        containers: [
          {
            name: 'foo',
            image: 'foo/bar',
            terminationMessagePath: '/dev/termination-log',
            imagePullPolicy: 'IfNotPresent',
          },
        ],
        dnsPolicy: 'Default',
      },
    },
  },
  status: {
    currentNumberScheduled: 0,
    desiredNumberScheduled: 0,
    numberMisscheduled: 0,
    numberReady: 0,
  },
});

/** Upstream `newRollingUpdateStrategy` / `updateStrategies()` entries. */
export const updateStrategies = (): {
  name: string;
  strategy: NonNullable<DaemonSet['spec']>['updateStrategy'];
}[] => [
  { name: 'OnDelete', strategy: { type: 'OnDelete' } },
  {
    name: 'RollingUpdate',
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
  },
];

/** Sets a DaemonSet's template, bumping generation like the API server. */
export const setTemplate = (
  ds: DaemonSet,
  mutate: (template: PodTemplateSpec) => void
): void => {
  const template = ds.spec?.template as PodTemplateSpec;
  mutate(template);
  const generation = (ds.metadata?.generation ?? 1) + 1;
  ds.metadata = {
    ...ds.metadata,
    generation,
    annotations: {
      ...ds.metadata?.annotations,
      [TEMPLATE_GENERATION_ANNOTATION]: String(generation),
    },
  };
};

/** Upstream `newNode`: Ready, 100 allocatable pods. */
export const newNode = (
  name: string,
  labels?: Record<string, string>
): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, ...(labels ? { labels: { ...labels } } : {}) },
  status: {
    conditions: [{ type: 'Ready', status: 'True' }],
    allocatable: { pods: '100' },
  },
});

/** Upstream `addNodes`: nodes `node-<start>` … `node-<start+n-1>`. */
export const makeNodes = (
  start: number,
  count: number,
  labels?: Record<string, string>
): Node[] =>
  Array.from({ length: count }, (_, i) => newNode(`node-${start + i}`, labels));

let podCounter = 0;

/**
 * Upstream `newPod`: a pod on `nodeName` with `labels`, controlled by `ds`
 * (and carrying its current hash) when given.
 */
export const newPod = (
  prefix: string,
  nodeName: string,
  labels: Record<string, string>,
  ds?: DaemonSet
): Pod => {
  podCounter += 1;
  const name = `${prefix}${podCounter.toString(36).padStart(5, '0')}`;
  const podLabels = ds
    ? { ...labels, [CONTROLLER_REVISION_HASH_LABEL]: computeHash(ds) }
    : { ...labels };
  const spec = ds
    ? clone(ds.spec?.template.spec ?? { containers: [] })
    : { containers: [{ name: 'foo', image: 'foo/bar' }] };
  if (nodeName !== '') spec.nodeName = nodeName;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      generateName: prefix,
      namespace: ds?.metadata?.namespace ?? 'default',
      uid: randomUUID(),
      labels: podLabels,
      ...(ds
        ? {
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'DaemonSet',
                name: ds.metadata?.name ?? '',
                uid: ds.metadata?.uid ?? '',
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    spec,
    status: { phase: 'Running' },
  };
};

/** Upstream `addPods`: `count` pods on the node. */
export const makePods = (
  nodeName: string,
  labels: Record<string, string>,
  ds: DaemonSet | undefined,
  count: number
): Pod[] =>
  Array.from({ length: count }, () =>
    newPod(`${nodeName}-`, nodeName, labels, ds)
  );

/**
 * A pod the scheduler has not bound yet, pinned to `nodeName` by the
 * `matchFields metadata.name` affinity a DaemonSet pod carries.
 */
export const newPinnedPod = (
  prefix: string,
  nodeName: string,
  labels: Record<string, string>,
  ds: DaemonSet
): Pod => {
  const pod = newPod(prefix, '', labels, ds);
  pod.spec = {
    ...pod.spec,
    containers: pod.spec?.containers ?? [],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchFields: [
                { key: 'metadata.name', operator: 'In', values: [nodeName] },
              ],
            },
          ],
        },
      },
    },
  };
  return pod;
};

/** Upstream `addFailedPods`: `count` Failed pods on the node. */
export const makeFailedPods = (
  nodeName: string,
  labels: Record<string, string>,
  ds: DaemonSet | undefined,
  count: number
): Pod[] =>
  makePods(nodeName, labels, ds, count).map((p) => ({
    ...p,
    status: { phase: 'Failed' },
  }));

/** Returns an RFC 3339 timestamp (second precision, as the API server). */
export const rfc3339 = (ms: number): string =>
  new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** Sets the pod's Ready condition to `ready` since `sinceMs`. */
export const setPodReady = (pod: Pod, ready: boolean, sinceMs: number): Pod => {
  const others = (pod.status?.conditions ?? []).filter(
    (c) => c.type !== 'Ready'
  );
  pod.status = {
    ...pod.status,
    conditions: [
      ...others,
      {
        type: 'Ready',
        status: ready ? 'True' : 'False',
        lastTransitionTime: rfc3339(sinceMs),
      },
    ],
  };
  return pod;
};

/** Upstream `markPodReady`: Ready=True since `sinceMs`. */
export const markPodReady = (pod: Pod, sinceMs: number): Pod =>
  setPodReady(pod, true, sinceMs);

/** Marks a pod as being deleted (graceful deletion in progress). */
export const markPodDeleting = (pod: Pod, atMs: number): Pod => {
  pod.metadata = { ...pod.metadata, deletionTimestamp: rfc3339(atMs) };
  return pod;
};
