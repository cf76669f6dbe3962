/**
 * How the API server wraps an object it sends as protobuf: the magic
 * `k8s\0`, then a runtime.Unknown (typeMeta = 1, raw = 2: the object's own
 * message). Also a metav1.Status so wrapped (an error), read back to the
 * JSON text apiErrorFromResponse reads.
 */
import { decodeMessage, type MessageSchema } from './message-schema.js';
import { MalformedProtobufError } from './proto-reader.js';

/** The media type of a protobuf answer, a watch's error among them. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** The magic that starts every protobuf-encoded object (`k8s\0`). */
const MAGIC = [0x6b, 0x38, 0x73, 0x00] as const;

/** runtime.Unknown: the object's message bytes (its kind is known). */
const UNKNOWN: MessageSchema = { raw: { n: 2, kind: 'bytes' } };

/** metav1.Status, as much as apiErrorFromResponse reads. */
const STATUS: MessageSchema = {
  status: { n: 2, kind: 'string' },
  message: { n: 3, kind: 'string' },
  reason: { n: 4, kind: 'string' },
  details: {
    n: 5,
    kind: 'message',
    message: {
      causes: {
        n: 4,
        kind: 'message',
        message: {
          reason: { n: 1, kind: 'string' },
          message: { n: 2, kind: 'string' },
          field: { n: 3, kind: 'string' },
        },
        repeated: true,
      },
      retryAfterSeconds: { n: 5, kind: 'int' },
    },
  },
  code: { n: 6, kind: 'int' },
};

/** The object's own message bytes, out of the magic and runtime.Unknown. */
export function unwrapObject(what: string, encoded: Uint8Array): Uint8Array {
  if (MAGIC.some((byte, i) => encoded[i] !== byte)) {
    throw new MalformedProtobufError(
      `${what}: an object without the k8s magic`
    );
  }
  const unknown = decodeMessage(UNKNOWN, encoded.subarray(MAGIC.length)) as {
    raw?: Uint8Array;
  };
  return unknown.raw ?? new Uint8Array(0);
}

/**
 * A metav1.Status sent as protobuf: its code, and its JSON text for
 * apiErrorFromResponse.
 */
export function protobufStatus(
  what: string,
  encoded: Uint8Array
): { code: number | undefined; text: string } {
  const status = decodeMessage(STATUS, unwrapObject(what, encoded)) as {
    code?: number;
  };
  return {
    code: status.code,
    text: JSON.stringify({ kind: 'Status', apiVersion: 'v1', ...status }),
  };
}
