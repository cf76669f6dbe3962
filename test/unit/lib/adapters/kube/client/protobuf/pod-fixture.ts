/**
 * One daemon pod twice: as the API server's JSON has it and as its protobuf
 * has it (field numbers of core/v1 and meta/v1 generated.proto), with fields
 * no sync reads in both, so the decoder must skip them.
 */
import {
  boolField,
  bytesField,
  concat,
  intField,
  mapEntry,
  stringField,
  timeField,
} from '#test/helpers/proto-writer.js';

const FIELDS_V1 = { 'f:metadata': { 'f:ownerReferences': {} } };

export const podJson = {
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: {
    name: 'agent-x7k2p',
    generateName: 'agent-',
    namespace: 'kube-system',
    uid: 'b1c4',
    resourceVersion: '4711',
    generation: 1,
    creationTimestamp: '2026-11-28T22:00:05Z',
    deletionTimestamp: '2026-11-28T22:10:00Z',
    deletionGracePeriodSeconds: 30,
    labels: { app: 'agent', 'controller-revision-hash': '6d9f', empty: '' },
    annotations: {
      'apps.kruise.io/inplace-update-state': '{"revision":"6d9f"}',
    },
    ownerReferences: [
      {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        name: 'agent',
        uid: 'a0d1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
    finalizers: ['example.com/hold'],
    managedFields: [
      {
        manager: 'dsr-reconciler',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2026-11-28T22:00:05Z',
        fieldsType: 'FieldsV1',
        fieldsV1: FIELDS_V1,
      },
    ],
  },
  spec: {
    containers: [
      { name: 'agent', image: 'agent:2', imagePullPolicy: 'IfNotPresent' },
    ],
    nodeName: 'node-3',
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchFields: [
                { key: 'metadata.name', operator: 'In', values: ['node-3'] },
              ],
            },
          ],
        },
      },
    },
    tolerations: [{ operator: 'Exists' }],
    readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
  },
  status: {
    phase: 'Running',
    conditions: [
      {
        type: 'Ready',
        status: 'False',
        lastProbeTime: null,
        lastTransitionTime: '2026-11-28T22:00:09Z',
        reason: 'ContainersNotReady',
      },
    ],
    hostIP: '10.0.0.3',
    containerStatuses: [
      {
        name: 'agent',
        state: { running: { startedAt: '2026-11-28T22:00:08Z' } },
        lastState: {},
        ready: false,
        restartCount: 0,
        image: 'agent:2',
        imageID: 'sha256:feed',
        started: true,
      },
      {
        name: 'sidecar',
        state: {
          waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s' },
        },
        lastState: {},
        ready: false,
        restartCount: 7,
        image: 'sidecar:1',
        imageID: '',
        started: false,
      },
    ],
  },
};

/** What the pod schema keeps of it. */
export const podKept = {
  metadata: {
    name: 'agent-x7k2p',
    namespace: 'kube-system',
    uid: 'b1c4',
    resourceVersion: '4711',
    creationTimestamp: '2026-11-28T22:00:05Z',
    deletionTimestamp: '2026-11-28T22:10:00Z',
    labels: podJson.metadata.labels,
    annotations: podJson.metadata.annotations,
    ownerReferences: podJson.metadata.ownerReferences,
    finalizers: ['example.com/hold'],
    managedFields: [
      { manager: 'dsr-reconciler', operation: 'Update', fieldsV1: FIELDS_V1 },
    ],
  },
  spec: {
    containers: [{ name: 'agent', image: 'agent:2' }],
    nodeName: 'node-3',
    affinity: podJson.spec.affinity,
    readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
  },
  status: {
    phase: 'Running',
    conditions: [
      {
        type: 'Ready',
        status: 'False',
        lastTransitionTime: '2026-11-28T22:00:09Z',
        reason: 'ContainersNotReady',
      },
    ],
    containerStatuses: [
      {
        name: 'agent',
        ready: false,
        restartCount: 0,
        image: 'agent:2',
        imageID: 'sha256:feed',
      },
      {
        name: 'sidecar',
        state: { waiting: { reason: 'CrashLoopBackOff' } },
        ready: false,
        restartCount: 7,
        image: 'sidecar:1',
        imageID: '',
      },
    ],
  },
};

const meta = concat(
  stringField(1, 'agent-x7k2p'),
  stringField(2, 'agent-'),
  stringField(3, 'kube-system'),
  stringField(4, ''),
  stringField(5, 'b1c4'),
  stringField(6, '4711'),
  intField(7, 1),
  timeField(8, '2026-11-28T22:00:05Z'),
  timeField(9, '2026-11-28T22:10:00Z'),
  intField(10, 30),
  mapEntry(11, 'app', 'agent'),
  mapEntry(11, 'controller-revision-hash', '6d9f'),
  mapEntry(11, 'empty', ''),
  mapEntry(12, 'apps.kruise.io/inplace-update-state', '{"revision":"6d9f"}'),
  bytesField(
    13,
    stringField(1, 'DaemonSet'),
    stringField(3, 'agent'),
    stringField(4, 'a0d1'),
    stringField(5, 'apps/v1'),
    boolField(6, true),
    boolField(7, true)
  ),
  stringField(14, 'example.com/hold'),
  bytesField(
    17,
    stringField(1, 'dsr-reconciler'),
    stringField(2, 'Update'),
    stringField(3, 'v1'),
    timeField(4, '2026-11-28T22:00:05Z'),
    stringField(6, 'FieldsV1'),
    bytesField(7, stringField(1, JSON.stringify(FIELDS_V1))),
    stringField(8, '')
  )
);

const spec = concat(
  bytesField(
    2,
    stringField(1, 'agent'),
    stringField(2, 'agent:2'),
    stringField(14, 'IfNotPresent'),
    boolField(16, false)
  ),
  stringField(3, 'Always'),
  stringField(10, 'node-3'),
  boolField(11, false),
  bytesField(
    18,
    bytesField(
      1,
      bytesField(
        1,
        bytesField(
          1,
          bytesField(
            2,
            stringField(1, 'metadata.name'),
            stringField(2, 'In'),
            stringField(3, 'node-3')
          )
        )
      )
    )
  ),
  bytesField(22, stringField(2, 'Exists')),
  bytesField(28, stringField(1, 'InPlaceUpdateReady'))
);

const status = concat(
  stringField(1, 'Running'),
  bytesField(
    2,
    intField(7, 0),
    stringField(1, 'Ready'),
    stringField(2, 'False'),
    timeField(3),
    timeField(4, '2026-11-28T22:00:09Z'),
    stringField(5, 'ContainersNotReady'),
    stringField(6, '')
  ),
  stringField(5, '10.0.0.3'),
  bytesField(
    8,
    stringField(1, 'agent'),
    bytesField(2, bytesField(2, timeField(1, '2026-11-28T22:00:08Z'))),
    bytesField(3),
    boolField(4, false),
    intField(5, 0),
    stringField(6, 'agent:2'),
    stringField(7, 'sha256:feed'),
    stringField(8, ''),
    boolField(9, true)
  ),
  bytesField(
    8,
    stringField(1, 'sidecar'),
    bytesField(
      2,
      bytesField(
        1,
        stringField(1, 'CrashLoopBackOff'),
        stringField(2, 'back-off 5m0s')
      )
    ),
    bytesField(3),
    boolField(4, false),
    intField(5, 7),
    stringField(6, 'sidecar:1'),
    stringField(7, ''),
    stringField(8, ''),
    boolField(9, false)
  ),
  intField(17, 2)
);

export const podProtobuf = concat(
  bytesField(1, meta),
  bytesField(2, spec),
  bytesField(3, status)
);
