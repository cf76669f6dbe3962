/**
 * decodeMessage and projectMessage: the pod schema keeps the same fields of
 * a pod whether it came as protobuf or as JSON, with JSON's zero values.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeMessage,
  type MessageSchema,
  projectMessage,
} from '#lib/adapters/kube/protobuf/message-schema.js';
import { POD } from '#lib/adapters/kube/protobuf/pod-schema.js';
import { MalformedProtobufError } from '#lib/adapters/kube/protobuf/proto-reader.js';
import {
  concat,
  intField,
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
