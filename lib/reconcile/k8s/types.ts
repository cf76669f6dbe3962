/**
 * Kubernetes object shapes as they travel on the wire (JSON), derived from the
 * `@kubernetes/client-node` models with every `Date` replaced by its RFC 3339
 * string. The sync core works on the raw objects the API server returned, not
 * on client-node's deserialised classes, because ControllerRevision data must
 * be computed from exactly what the server sent (unknown fields included).
 */
import type {
  V1Affinity,
  V1ControllerRevision,
  V1DaemonSet,
  V1DaemonSetStatus,
  V1LabelSelector,
  V1Node,
  V1NodeSelectorRequirement,
  V1NodeSelectorTerm,
  V1ObjectMeta,
  V1OwnerReference,
  V1Pod,
  V1PodSpec,
  V1PodTemplateSpec,
  V1Taint,
  V1Toleration,
} from '@kubernetes/client-node';

/** Returns the JSON wire form of a client-node model type. */
export type Wire<T> = T extends Date
  ? string
  : T extends (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

export type ObjectMeta = Wire<V1ObjectMeta>;
export type OwnerReference = Wire<V1OwnerReference>;
/**
 * A DaemonSet of either kind the reconciler owns: apps/v1, or the own kind
 * (apps.dsr.dev AdvancedDaemonSet), which adds OpenKruise Advanced
 * DaemonSet's v1beta1 rollout controls. Fields absent from an object change
 * nothing: an apps/v1 DaemonSet never carries them.
 */
export type DaemonSet = Wire<V1DaemonSet> & {
  spec?: AdvancedDaemonSetSpec;
  status?: { updateRevision?: string };
};

/** An int or a percentage string such as "10%" (intstr.IntOrString). */
export type IntOrString = number | string;

/** Kruise v1beta1's rolling update additions. */
export interface AdvancedRollingUpdate {
  /** `Standard` recreates pods; `InPlaceIfPossible` patches images in place. */
  rollingUpdateType?: 'Standard' | 'InPlaceIfPossible';
  /** Nodes kept on old revisions (int, or % of the desired count). */
  partition?: IntOrString;
  /** Only nodes matching this label selector are updated (canary). */
  selector?: LabelSelector;
  /** Stops the update pass; everything else still runs. */
  paused?: boolean;
}

/** A lifecycle hook: the pod is held until these labels/finalizers go. */
export interface LifecycleHook {
  labelsHandler?: Record<string, string>;
  finalizersHandler?: string[];
  markPodNotReady?: boolean;
}

/** Kruise v1beta1's spec additions (all optional). */
export interface AdvancedDaemonSetSpec {
  updateStrategy?: { rollingUpdate?: AdvancedRollingUpdate };
  /** Creates, deletes and in-place updates per sync (int or %). */
  burstReplicas?: IntOrString;
  scaleStrategy?: { partitionedScaling?: boolean };
  lifecycle?: { preDelete?: LifecycleHook };
}
export type DaemonSetStatus = Wire<V1DaemonSetStatus>;
export type Pod = Wire<V1Pod>;
export type PodSpec = Wire<V1PodSpec>;
export type PodTemplateSpec = Wire<V1PodTemplateSpec>;
export type Node = Wire<V1Node>;
export type Taint = Wire<V1Taint>;
export type Toleration = Wire<V1Toleration>;
export type Affinity = Wire<V1Affinity>;
export type LabelSelector = Wire<V1LabelSelector>;
export type NodeSelectorTerm = Wire<V1NodeSelectorTerm>;
export type NodeSelectorRequirement = Wire<V1NodeSelectorRequirement>;
/** A ControllerRevision; `data` is the raw JSON patch upstream stores. */
export type ControllerRevision = Omit<Wire<V1ControllerRevision>, 'data'> & {
  data?: unknown;
};

/** Any object with metadata, for ownership decisions shared by kinds. */
export interface KubeObject {
  metadata?: ObjectMeta;
}

/** Label on pods and revisions naming the revision (apps/v1 constant). */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';
/** Pod label carrying the template generation (extensions constant). */
export const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
/** Annotation where apps/v1 exposes the DaemonSet's templateGeneration. */
export const TEMPLATE_GENERATION_ANNOTATION =
  'deprecated.daemonset.template.generation';
