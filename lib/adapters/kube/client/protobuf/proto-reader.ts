/**
 * A reader of the protobuf wire format, as much of it as Kubernetes'
 * messages use: varints, length-delimited fields (strings, bytes, embedded
 * messages, map entries) and skippable fixed-width ones. No generated code:
 * the messages a product decodes are described by schemas
 * (message-schema.ts).
 */
import { ReconcilerError } from '../../../../errors.js';

/** A protobuf message that does not parse. */
export class MalformedProtobufError extends ReconcilerError {}

/** Wire types (https://protobuf.dev/programming-guides/encoding/). */
export const WireType = {
  varint: 0,
  fixed64: 1,
  lengthDelimited: 2,
  fixed32: 5,
} as const;

const utf8 = new TextDecoder('utf-8');

/** Reads the fields of one message in order, each once. */
export class ProtoReader {
  readonly #buf: Uint8Array;
  readonly #end: number;
  #pos: number;

  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.#buf = buf;
    this.#pos = start;
    this.#end = end;
  }

  /** Whether every field was read. */
  get done(): boolean {
    return this.#pos >= this.#end;
  }

  /** The next field's tag: its number times 8 plus its wire type. */
  tag(): number {
    return this.varint();
  }

  /**
   * A varint as a number: exact up to 2^53, and negative int32/int64 values
   * (sign-extended to ten bytes on the wire) come back negative.
   */
  varint(): number {
    const start = this.#pos;
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.#pos >= this.#end) throw this.#malformed('truncated varint');
      const byte = this.#buf[this.#pos++] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        // Past 2^53 a double loses the low bits: redo it exactly.
        return i < 7 ? value : this.#wideVarint(start);
      }
      scale *= 128;
    }
    throw this.#malformed('varint longer than ten bytes');
  }

  /** A length-delimited field's bytes (a view, not a copy). */
  bytes(): Uint8Array {
    const length = this.varint();
    const start = this.#pos;
    if (length < 0 || start + length > this.#end) {
      throw this.#malformed('length past the end of the message');
    }
    this.#pos = start + length;
    return this.#buf.subarray(start, this.#pos);
  }

  /** A length-delimited field read as UTF-8 text. */
  string(): string {
    return utf8.decode(this.bytes());
  }

  /** Skips a field the schema does not name. */
  skip(wireType: number): void {
    switch (wireType) {
      case WireType.varint:
        this.varint();
        return;
      case WireType.fixed64:
        this.#advance(8);
        return;
      case WireType.lengthDelimited:
        this.bytes();
        return;
      case WireType.fixed32:
        this.#advance(4);
        return;
      default:
        throw this.#malformed(`unsupported wire type ${wireType}`);
    }
  }

  #advance(n: number): void {
    if (this.#pos + n > this.#end) throw this.#malformed('truncated field');
    this.#pos += n;
  }

  #wideVarint(start: number): number {
    let value = 0n;
    let shift = 0n;
    for (let p = start; p < this.#pos; p++) {
      value |= BigInt((this.#buf[p] as number) & 0x7f) << shift;
      shift += 7n;
    }
    return Number(BigInt.asIntN(64, value));
  }

  #malformed(why: string): MalformedProtobufError {
    return new MalformedProtobufError(
      `malformed protobuf at byte ${this.#pos}: ${why}`
    );
  }
}
