/**
 * The fields of the watched objects the checker reads, typed as the API
 * server's raw JSON (timestamps are strings). client-node's V1* classes are
 * not used: they describe deserialized objects (Dates), while the checker
 * keeps what the watch sent, so ControllerRevision data compares byte-true.
 */

export type IntOrString = number | string;

export interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid: string;
  controller?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion?: string;
  generation?: number;
  /** RFC 3339, second precision, the API server's clock. */
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
  ownerReferences?: OwnerReference[];
  managedFields?: ManagedFieldsEntry[];
}

/** Who wrote which fields of an object (server-side field management). */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  fieldsV1?: Record<string, unknown>;
}

export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

export interface PodSpec {
  nodeName?: string;
  hostNetwork?: boolean;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  affinity?: {
    nodeAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: {
        nodeSelectorTerms?: NodeSelectorTerm[];
      };
    };
  };
}

export interface PodCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
}

export interface Pod {
  metadata: ObjectMeta;
  spec?: PodSpec;
  status?: { phase?: string; conditions?: PodCondition[] };
}

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface Node {
  metadata: ObjectMeta;
  spec?: { taints?: Taint[]; unschedulable?: boolean };
  status?: { conditions?: PodCondition[] };
}

export interface RollingUpdateSpec {
  maxUnavailable?: IntOrString;
  maxSurge?: IntOrString;
}

export interface DaemonSetStatus {
  observedGeneration?: number;
  desiredNumberScheduled?: number;
  currentNumberScheduled?: number;
  numberMisscheduled?: number;
  numberReady?: number;
  numberAvailable?: number;
  numberUnavailable?: number;
  updatedNumberScheduled?: number;
}

export interface DaemonSet {
  metadata: ObjectMeta;
  spec: {
    minReadySeconds?: number;
    template: { metadata?: ObjectMeta; spec?: PodSpec };
    updateStrategy?: { type?: string; rollingUpdate?: RollingUpdateSpec };
  };
  status?: DaemonSetStatus;
}

export interface ControllerRevision {
  metadata: ObjectMeta;
  revision?: number;
  data?: unknown;
}

/** The four kinds the checker watches. */
export type WatchedKind = 'pod' | 'node' | 'daemonSet' | 'revision';

/** Maps a watched kind to its object type. */
export interface KindObjects {
  pod: Pod;
  node: Node;
  daemonSet: DaemonSet;
  revision: ControllerRevision;
}

/**
 * The kinds a run's DaemonSets may be: apps/v1, or the product's own
 * AdvancedDaemonSet (same spec and status fields, plus Kruise's controls).
 */
export type DaemonSetKind = 'DaemonSet' | 'AdvancedDaemonSet';

/** Returns whether an owner reference names a DaemonSet of either kind. */
export const isDaemonSetKind = (kind: string | undefined): boolean =>
  kind === 'DaemonSet' || kind === 'AdvancedDaemonSet';

/** Returns the namespace's DaemonSets collection of `kind`. */
export const daemonSetsPath = (kind: DaemonSetKind, ns: string): string =>
  kind === 'DaemonSet'
    ? `/apis/apps/v1/namespaces/${ns}/daemonsets`
    : `/apis/apps.dsr.dev/v1beta1/namespaces/${ns}/advanceddaemonsets`;

/** Label holding the revision a daemon pod was made from (apps/v1). */
export const REVISION_HASH_LABEL = 'controller-revision-hash';
