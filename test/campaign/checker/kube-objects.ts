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
  deletionTimestamp?: string;
  ownerReferences?: OwnerReference[];
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

/** Label holding the revision a daemon pod was made from (apps/v1). */
export const REVISION_HASH_LABEL = 'controller-revision-hash';
