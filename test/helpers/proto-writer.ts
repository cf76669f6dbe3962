/**
 * Writes protobuf messages field by field, for the decoder's unit tests
 * (what the API server really sends is checked against it in
 * test/integration/protobuf-watch.test.ts).
 */

/** A varint; negative numbers sign-extended to ten bytes, as Go writes them. */
export const varint = (value: number | bigint): Uint8Array => {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? low | 0x80 : low);
  } while (v > 0n);
  return Uint8Array.from(out);
};

export const concat = (...parts: Uint8Array[]): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => [...p]));

const tag = (n: number, wireType: number) => varint(n * 8 + wireType);

/** A length-delimited field: bytes, text or an embedded message. */
export const bytesField = (n: number, ...parts: Uint8Array[]): Uint8Array => {
  const body = concat(...parts);
  return concat(tag(n, 2), varint(body.length), body);
};

export const stringField = (n: number, text: string): Uint8Array =>
  bytesField(n, new TextEncoder().encode(text));

export const intField = (n: number, value: number | bigint): Uint8Array =>
  concat(tag(n, 0), varint(value));

export const boolField = (n: number, value: boolean): Uint8Array =>
  intField(n, value ? 1 : 0);

/** A map<string, string> entry. */
export const mapEntry = (n: number, key: string, value: string) =>
  bytesField(n, stringField(1, key), stringField(2, value));

/** A metav1.Time of whole seconds (the zero time: no bytes). */
export const timeField = (n: number, iso?: string): Uint8Array =>
  iso === undefined
    ? bytesField(n)
    : bytesField(n, intField(1, Math.floor(Date.parse(iso) / 1000)));

/** An object as the API server wraps it: `k8s\0`, a runtime.Unknown. */
export const wrapped = (kind: string, message: Uint8Array): Uint8Array =>
  concat(
    Uint8Array.from([0x6b, 0x38, 0x73, 0x00]),
    bytesField(1, stringField(1, 'v1'), stringField(2, kind)),
    bytesField(2, message)
  );

/** One frame of a protobuf watch stream. */
export const watchFrame = (type: string, object: Uint8Array): Uint8Array => {
  const event = concat(
    stringField(1, type),
    bytesField(2, bytesField(1, object))
  );
  const length = new Uint8Array(4);
  new DataView(length.buffer).setUint32(0, event.length);
  return concat(length, event);
};

/** A metav1.Status of a failure, as the API server writes its errors. */
export const statusMessage = (
  code: number,
  reason: string,
  message: string,
  cause?: string
): Uint8Array =>
  concat(
    bytesField(1),
    stringField(2, 'Failure'),
    stringField(3, message),
    stringField(4, reason),
    bytesField(5, ...(cause ? [bytesField(4, stringField(1, cause))] : [])),
    intField(6, code)
  );
