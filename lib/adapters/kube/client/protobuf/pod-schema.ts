/**
 * The fields of a core/v1 Pod a sync reads, with their numbers in
 * k8s.io/api core/v1 and apimachinery meta/v1 `generated.proto` (1.36; the
 * numbers never change). A cached pod keeps these and nothing else,
 * whether it came as JSON from a list or as protobuf from a watch; what
 * reads each field: docs/reads.md#the-pod-watch-in-protobuf.
 */
import type { MessageSchema } from './message-schema.js';

const OWNER_REFERENCE: MessageSchema = {
  kind: { n: 1, kind: 'string', keepZero: true },
  name: { n: 3, kind: 'string', keepZero: true },
  uid: { n: 4, kind: 'string', keepZero: true },
  apiVersion: { n: 5, kind: 'string', keepZero: true },
  controller: { n: 6, kind: 'bool', keepZero: true },
  blockOwnerDeletion: { n: 7, kind: 'bool', keepZero: true },
};

/** The fight guard reads who wrote owner references (foreign-writes.ts). */
const MANAGED_FIELDS_ENTRY: MessageSchema = {
  manager: { n: 1, kind: 'string' },
  operation: { n: 2, kind: 'string' },
  fieldsV1: { n: 7, kind: 'json' },
  subresource: { n: 8, kind: 'string' },
};

const OBJECT_META: MessageSchema = {
  name: { n: 1, kind: 'string' },
  namespace: { n: 3, kind: 'string' },
  uid: { n: 5, kind: 'string' },
  resourceVersion: { n: 6, kind: 'string' },
  creationTimestamp: { n: 8, kind: 'time' },
  deletionTimestamp: { n: 9, kind: 'time', keepZero: true },
  labels: { n: 11, kind: 'map' },
  annotations: { n: 12, kind: 'map' },
  ownerReferences: {
    n: 13,
    kind: 'message',
    message: OWNER_REFERENCE,
    repeated: true,
  },
  finalizers: { n: 14, kind: 'string', repeated: true },
  managedFields: {
    n: 17,
    kind: 'message',
    message: MANAGED_FIELDS_ENTRY,
    repeated: true,
  },
};

const NODE_SELECTOR_REQUIREMENT: MessageSchema = {
  key: { n: 1, kind: 'string', keepZero: true },
  operator: { n: 2, kind: 'string', keepZero: true },
  values: { n: 3, kind: 'string', repeated: true },
};

const NODE_SELECTOR_TERM: MessageSchema = {
  matchExpressions: {
    n: 1,
    kind: 'message',
    message: NODE_SELECTOR_REQUIREMENT,
    repeated: true,
  },
  matchFields: {
    n: 2,
    kind: 'message',
    message: NODE_SELECTOR_REQUIREMENT,
    repeated: true,
  },
};

/** Upstream's GetTargetNodeName reads a pending pod's node from here. */
const AFFINITY: MessageSchema = {
  nodeAffinity: {
    n: 1,
    kind: 'message',
    message: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        n: 1,
        kind: 'message',
        message: {
          nodeSelectorTerms: {
            n: 1,
            kind: 'message',
            message: NODE_SELECTOR_TERM,
            repeated: true,
          },
        },
      },
    },
  },
};

const CONTAINER: MessageSchema = {
  name: { n: 1, kind: 'string', keepZero: true },
  image: { n: 2, kind: 'string' },
};

const POD_SPEC: MessageSchema = {
  containers: { n: 2, kind: 'message', message: CONTAINER, repeated: true },
  nodeName: { n: 10, kind: 'string' },
  affinity: { n: 18, kind: 'message', message: AFFINITY },
  readinessGates: {
    n: 28,
    kind: 'message',
    message: { conditionType: { n: 1, kind: 'string', keepZero: true } },
    repeated: true,
  },
};

const POD_CONDITION: MessageSchema = {
  type: { n: 1, kind: 'string', keepZero: true },
  status: { n: 2, kind: 'string', keepZero: true },
  lastTransitionTime: { n: 4, kind: 'time', keepZero: true },
  reason: { n: 5, kind: 'string' },
  message: { n: 6, kind: 'string' },
};

/** ContainerState: only why a container waits (fleet health gates). */
const CONTAINER_STATE: MessageSchema = {
  waiting: {
    n: 1,
    kind: 'message',
    message: { reason: { n: 1, kind: 'string' } },
  },
};

const CONTAINER_STATUS: MessageSchema = {
  name: { n: 1, kind: 'string', keepZero: true },
  state: { n: 2, kind: 'message', message: CONTAINER_STATE, omitEmpty: true },
  ready: { n: 4, kind: 'bool', keepZero: true },
  restartCount: { n: 5, kind: 'int', keepZero: true },
  image: { n: 6, kind: 'string', keepZero: true },
  imageID: { n: 7, kind: 'string', keepZero: true },
};

const POD_STATUS: MessageSchema = {
  phase: { n: 1, kind: 'string' },
  conditions: { n: 2, kind: 'message', message: POD_CONDITION, repeated: true },
  containerStatuses: {
    n: 8,
    kind: 'message',
    message: CONTAINER_STATUS,
    repeated: true,
  },
};

/** A Pod as a sync reads it. */
export const POD: MessageSchema = {
  metadata: { n: 1, kind: 'message', message: OBJECT_META },
  spec: { n: 2, kind: 'message', message: POD_SPEC },
  status: { n: 3, kind: 'message', message: POD_STATUS },
};
