/**
 * Describes a Kubernetes message by the fields a reader keeps, and turns it
 * into the object its JSON form would be — from protobuf (`decodeMessage`) or
 * from that JSON (`projectMessage`), the same fields either way, so a
 * collection fed by a JSON list and a protobuf watch holds objects of one
 * shape. Fields a schema does not name are dropped from both.
 *
 * JSON's zero values, from the Go types: a field JSON prints even when zero
 * (a pointer, or one without `omitempty`: `ready: false`, `restartCount: 0`,
 * a condition's `lastProbeTime: null`) is `keepZero`; any other string, int,
 * bool or Time equal to its zero is left out, as `omitempty` leaves it out.
 * Protobuf writes every non-pointer field, zero or not, and pointers only
 * when set, so "on the wire and `keepZero`" is exactly "in the JSON".
 */
import {
  MalformedProtobufError,
  ProtoReader,
  WireType,
} from './proto-reader.js';

/**
 * A scalar: text, an int32/int64, a bool, a metav1.Time, a message whose
 * field 1 holds raw JSON (metav1.FieldsV1), or bytes as they lie (a view of
 * the message: for envelopes, never kept).
 */
export type ScalarKind = 'string' | 'int' | 'bool' | 'time' | 'json' | 'bytes';

interface FieldBase {
  /** The field's number in the message's generated.proto. */
  n: number;
  /** JSON shows it even when zero (a pointer, or no `omitempty`). */
  keepZero?: true;
}

export interface ScalarField extends FieldBase {
  kind: ScalarKind;
  repeated?: true;
}

/** map<string, string> (entries: key = 1, value = 2). */
export interface MapField extends FieldBase {
  kind: 'map';
}

export interface MessageField extends FieldBase {
  kind: 'message';
  message: MessageSchema;
  repeated?: true;
  /**
   * Left out when none of its kept fields is set (a container's state
   * keeps only `waiting`: a running container has no state here).
   */
  omitEmpty?: true;
}

/** Returns whether `field` is a message left out when it keeps nothing. */
const omittedEmpty = (field: FieldSchema, value: unknown): boolean =>
  field.kind === 'message' &&
  field.omitEmpty === true &&
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.keys(value).length === 0;

export type FieldSchema = ScalarField | MapField | MessageField;

/** The kept fields of one message, by their JSON names. */
export type MessageSchema = Readonly<Record<string, FieldSchema>>;

type JsonObject = Record<string, unknown>;

/** Field number → [JSON name, field], built once per schema. */
const byNumber = new WeakMap<
  MessageSchema,
  Map<number, [string, FieldSchema]>
>();

const numbered = (schema: MessageSchema) => {
  let index = byNumber.get(schema);
  if (index === undefined) {
    index = new Map(
      Object.entries(schema).map(([name, f]) => [f.n, [name, f]] as const)
    );
    byNumber.set(schema, index);
  }
  return index;
};

/** Decodes the kept fields of a message into its JSON form. */
export function decodeMessage(
  schema: MessageSchema,
  bytes: Uint8Array
): JsonObject {
  const index = numbered(schema);
  const out: JsonObject = {};
  const reader = new ProtoReader(bytes);
  while (!reader.done) {
    const tag = reader.tag();
    const wireType = tag & 7;
    const entry = index.get(Math.floor(tag / 8));
    if (entry === undefined) {
      reader.skip(wireType);
      continue;
    }
    const [name, field] = entry;
    const value = readValue(reader, field, wireType);
    if (field.kind === 'map') {
      const [key, text] = value as [string, string];
      const map = (out[name] as Record<string, string> | undefined) ?? {};
      map[key] = text;
      out[name] = map;
    } else if (field.repeated) {
      const list = (out[name] as unknown[] | undefined) ?? [];
      list.push(value);
      out[name] = list;
    } else {
      out[name] = value;
    }
  }
  return inSchemaOrder(schema, out);
}

/** Keeps, from an object as JSON has it, the fields the schema names. */
export function projectMessage(
  schema: MessageSchema,
  obj: JsonObject
): JsonObject {
  const out: JsonObject = {};
  for (const [name, field] of Object.entries(schema)) {
    const value = obj[name];
    if (value === undefined) continue;
    if (field.kind !== 'message' || value === null) {
      out[name] = value;
    } else if (Array.isArray(value)) {
      out[name] = value.map((v) => projectMessage(field.message, v));
    } else {
      const projected = projectMessage(field.message, value as JsonObject);
      if (!omittedEmpty(field, projected)) out[name] = projected;
    }
  }
  return out;
}

function readValue(
  reader: ProtoReader,
  field: FieldSchema,
  wireType: number
): unknown {
  const expected =
    field.kind === 'int' || field.kind === 'bool'
      ? WireType.varint
      : WireType.lengthDelimited;
  if (wireType !== expected) {
    throw new MalformedProtobufError(
      `field ${field.n}: wire type ${wireType}, expected ${expected}`
    );
  }
  switch (field.kind) {
    case 'string':
      return reader.string();
    case 'int':
      return reader.varint();
    case 'bool':
      return reader.varint() !== 0;
    case 'time':
      return timeText(reader.bytes());
    case 'json':
      return rawJson(reader.bytes());
    case 'bytes':
      return reader.bytes();
    case 'map':
      return mapEntry(reader.bytes());
    case 'message':
      return decodeMessage(field.message, reader.bytes());
  }
}

const ENTRY: MessageSchema = {
  key: { n: 1, kind: 'string', keepZero: true },
  value: { n: 2, kind: 'string', keepZero: true },
};

/** A map entry; a key or value missing on the wire is "". */
const mapEntry = (bytes: Uint8Array): [string, string] => {
  const { key = '', value = '' } = decodeMessage(ENTRY, bytes) as {
    key?: string;
    value?: string;
  };
  return [key, value];
};

const RAW: MessageSchema = { raw: { n: 1, kind: 'string' } };

/** The JSON a FieldsV1 or RawExtension carries; none is null. */
const rawJson = (bytes: Uint8Array): unknown => {
  const { raw } = decodeMessage(RAW, bytes) as { raw?: string };
  return raw === undefined ? null : JSON.parse(raw);
};

const TIMESTAMP: MessageSchema = {
  seconds: { n: 1, kind: 'int' },
  nanos: { n: 2, kind: 'int' },
};

/**
 * A metav1.Time as JSON prints it: RFC 3339 in whole seconds, UTC; the zero
 * time (no bytes) is null. The server sends seconds only.
 */
const timeText = (bytes: Uint8Array): string | null => {
  if (bytes.length === 0) return null;
  const { seconds = 0 } = decodeMessage(TIMESTAMP, bytes) as {
    seconds?: number;
  };
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
};

/**
 * The decoded fields in the schema's order (declared as JSON prints them, so
 * a decoded object stringifies as its JSON would), without the zeros JSON's
 * `omitempty` leaves out.
 */
function inSchemaOrder(schema: MessageSchema, decoded: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [name, field] of Object.entries(schema)) {
    const value = decoded[name];
    if (value === undefined) continue;
    const zero =
      value === '' || value === 0 || value === false || value === null;
    if (zero && !field.keepZero && field.kind !== 'message') continue;
    if (omittedEmpty(field, value)) continue;
    out[name] = value;
  }
  return out;
}
