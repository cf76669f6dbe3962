/** ProtoReader: varints of every width, bounds, skipped fields. */
import { describe, expect, it } from 'vitest';
import {
  MalformedProtobufError,
  ProtoReader,
} from '#lib/adapters/kube/client/protobuf/proto-reader.js';
import { concat, varint } from '#test/helpers/proto-writer.js';

const readVarint = (bytes: Uint8Array) => new ProtoReader(bytes).varint();

describe('ProtoReader', () => {
  it.each([
    [0, [0x00]],
    [1, [0x01]],
    [150, [0x96, 0x01]],
    [2 ** 31, [0x80, 0x80, 0x80, 0x80, 0x08]],
  ])('reads the varint %d', (value, bytes) => {
    expect(readVarint(Uint8Array.from(bytes))).toBe(value);
  });

  it('reads varints past 2^49 exactly, up to 2^53', () => {
    for (const value of [2 ** 49 + 1, 2 ** 52 + 3, Number.MAX_SAFE_INTEGER]) {
      expect(readVarint(varint(value))).toBe(value);
    }
  });

  it('reads negative int32 and int64 values, sign-extended to ten bytes', () => {
    for (const value of [-1, -137, -(2 ** 31), -(2 ** 40)]) {
      const bytes = varint(value);
      expect(bytes.length).toBe(10);
      expect(readVarint(bytes)).toBe(value);
    }
  });

  it('refuses a truncated varint and a length past the end', () => {
    expect(() => readVarint(Uint8Array.from([0x96]))).toThrow(
      MalformedProtobufError
    );
    const pastEnd = new ProtoReader(concat(varint(5), Uint8Array.from([1, 2])));
    expect(() => pastEnd.bytes()).toThrow(/length past the end/);
  });

  it('skips fields of every wire type, and refuses an unknown one', () => {
    // Prepare: varint 300, fixed64, a 2-byte string, fixed32, then 7
    const bytes = concat(
      varint(300),
      new Uint8Array(8),
      varint(2),
      Uint8Array.from([0x68, 0x69]),
      new Uint8Array(4),
      varint(7)
    );
    const reader = new ProtoReader(bytes);
    // Act
    for (const wireType of [0, 1, 2, 5]) reader.skip(wireType);
    // Assess
    expect(reader.varint()).toBe(7);
    expect(reader.done).toBe(true);
    expect(() => new ProtoReader(bytes).skip(3)).toThrow(/wire type 3/);
  });
});
