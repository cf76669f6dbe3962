/**
 * Ports how a daemon pod is built: `util.CreatePodTemplate`
 * (pkg/controller/daemon/util/daemonset_util.go), `GetPodFromTemplate` and
 * `getPodsPrefix` (pkg/controller/controller_utils.go), and the per-node
 * affinity set in `syncNodes`.
 */
import { newControllerRef } from './k8s/controller-ref.js';
import { replaceDaemonSetPodNodeNameNodeAffinity } from './k8s/node-affinity.js';
import { addOrUpdateDaemonPodTolerations } from './k8s/tolerations.js';
import type { DaemonSet, Pod, PodTemplateSpec } from './k8s/types.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  TEMPLATE_GENERATION_LABEL,
} from './k8s/types.js';

/**
 * Returns the template pods are created from: daemon tolerations added,
 * `pod-template-generation` and `controller-revision-hash` labels set.
 */
export const createPodTemplate = (
  template: PodTemplateSpec,
  generation: string | undefined,
  hash: string
): PodTemplateSpec => {
  const copy = structuredClone(template);
  const labels: Record<string, string> = { ...copy.metadata?.labels };
  if (generation !== undefined) labels[TEMPLATE_GENERATION_LABEL] = generation;
  if (hash.length > 0) labels[CONTROLLER_REVISION_HASH_LABEL] = hash;
  return {
    ...copy,
    metadata: { ...copy.metadata, labels },
    spec: addOrUpdateDaemonPodTolerations(copy.spec ?? { containers: [] }),
  };
};

/** Longest name a generateName prefix may have (DNS subdomain, 253). */
const MAX_NAME_LENGTH = 253;
const DNS_SUBDOMAIN_PREFIX =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*-?$/;

/** Returns the generateName for pods of `dsName` (upstream `getPodsPrefix`). */
export const getPodsPrefix = (dsName: string): string => {
  const prefix = `${dsName}-`;
  // ValidatePodName(prefix, true) masks the trailing dash before checking.
  const valid =
    prefix.length <= MAX_NAME_LENGTH && DNS_SUBDOMAIN_PREFIX.test(prefix);
  return valid ? prefix : dsName;
};

/**
 * Returns the pod to create on `nodeName` from a template made by
 * `createPodTemplate` (upstream `GetPodFromTemplate` plus the node affinity
 * that makes the scheduler bind it to that node).
 */
export const newDaemonPod = (
  template: PodTemplateSpec,
  ds: DaemonSet,
  nodeName: string
): Pod => {
  const spec = structuredClone(template.spec ?? { containers: [] });
  spec.affinity = replaceDaemonSetPodNodeNameNodeAffinity(
    spec.affinity,
    nodeName
  );
  const meta = template.metadata ?? {};
  return {
    metadata: {
      generateName: getPodsPrefix(ds.metadata?.name ?? ''),
      ...(meta.labels ? { labels: { ...meta.labels } } : {}),
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
      ownerReferences: [newControllerRef(ds)],
    },
    spec,
  };
};
