/**
 * decodeMessage and projectMessage: the pod schema keeps the same fields of
 * a pod whether it came as protobuf or as JSON, with JSON's zero values.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeMessage,
  type MessageSchema,
  projectMessage,
} from '#lib/adapters/kube/client/protobuf/message-schema.js';
import { NODE } from '#lib/adapters/kube/client/protobuf/node-schema.js';
import { POD } from '#lib/adapters/kube/client/protobuf/pod-schema.js';
import { MalformedProtobufError } from '#lib/adapters/kube/client/protobuf/proto-reader.js';
import {
  bytesField,
  concat,
  intField,
  mapEntry,
  stringField,
  timeField,
} from '#test/helpers/proto-writer.js';
import { podJson, podKept, podProtobuf } from './pod-fixture.js';

describe('the pod schema', () => {
  it('decodes a protobuf pod into the fields a sync reads, as JSON has them', () => {
    expect(decodeMessage(POD, podProtobuf)).toEqual(podKept);
  });

  it('keeps the same fields of the JSON pod', () => {
    expect(projectMessage(POD, podJson)).toEqual(podKept);
  });

  it('projects its own output to itself', () => {
    const decoded = decodeMessage(POD, podProtobuf);
    expect(projectMessage(POD, decoded)).toEqual(decoded);
  });
});

describe('the node schema', () => {
  const taintsJson = [
    { key: 'dedicated', value: 'agents', effect: 'NoSchedule' },
    { key: 'gone', effect: 'NoExecute', timeAdded: '2026-11-28T22:00:00Z' },
  ];
  const nodeJson = {
    metadata: {
      name: 'node-3',
      uid: 'n3',
      resourceVersion: '99',
      labels: { zone: 'a', empty: '' },
      managedFields: [{ manager: 'kubelet' }],
    },
    spec: { podCIDR: '10.0.3.0/24', taints: taintsJson },
    status: { images: [{ names: ['agent:1'] }], conditions: [] },
  };
  const taint = (key: string, value: string, effect: string, at?: string) =>
    bytesField(
      5,
      stringField(1, key),
      stringField(2, value),
      stringField(3, effect),
      ...(at === undefined ? [] : [timeField(4, at)])
    );
  const nodeProtobuf = concat(
    bytesField(
      1,
      stringField(1, 'node-3'),
      stringField(5, 'n3'),
      stringField(6, '99'),
      mapEntry(11, 'empty', ''),
      mapEntry(11, 'zone', 'a')
    ),
    bytesField(
      2,
      stringField(1, '10.0.3.0/24'),
      taint('dedicated', 'agents', 'NoSchedule'),
      taint('gone', '', 'NoExecute', '2026-11-28T22:00:00Z')
    ),
    bytesField(3, bytesField(13, bytesField(1, stringField(1, 'agent:1'))))
  );

  it('keeps name, version, labels and taints, from protobuf and JSON alike', () => {
    const kept = {
      metadata: {
        name: 'node-3',
        resourceVersion: '99',
        labels: nodeJson.metadata.labels,
      },
      spec: { taints: taintsJson },
    };
    expect(decodeMessage(NODE, nodeProtobuf)).toEqual(kept);
    expect(projectMessage(NODE, nodeJson)).toEqual(kept);
  });

  it('prints taints as their JSON text, keys in the same order', () => {
    const decoded = decodeMessage(NODE, nodeProtobuf) as typeof nodeJson;
    expect(JSON.stringify(decoded.spec.taints)).toBe(
      JSON.stringify(taintsJson)
    );
  });
});

describe('decodeMessage', () => {
  const schema: MessageSchema = {
    name: { n: 1, kind: 'string' },
    count: { n: 2, kind: 'int' },
    seen: { n: 3, kind: 'time' },
    probed: { n: 4, kind: 'time', keepZero: true },
    tags: { n: 5, kind: 'string', repeated: true },
  };

  it("leaves out omitempty's zeros and keeps a keepZero Time's null", () => {
    const bytes = concat(
      stringField(1, ''),
      intField(2, 0),
      timeField(3),
      timeField(4)
    );
    expect(decodeMessage(schema, bytes)).toEqual({ probed: null });
  });

  it('collects repeated fields in order, and the last of a scalar wins', () => {
    const bytes = concat(
      stringField(5, 'a'),
      stringField(1, 'first'),
      stringField(5, 'b'),
      stringField(1, 'second')
    );
    expect(decodeMessage(schema, bytes)).toEqual({
      name: 'second',
      tags: ['a', 'b'],
    });
  });

  it('refuses a field whose wire type is not its schema kind', () => {
    expect(() => decodeMessage(schema, intField(1, 3))).toThrow(
      MalformedProtobufError
    );
  });
});
