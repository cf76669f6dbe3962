/**
 * The events of a protobuf watch answer (`Accept:
 * application/vnd.kubernetes.protobuf;stream=watch`), about half the bytes
 * of its JSON: frames of a 4-byte big-endian length and a metav1.WatchEvent
 * (type = 1, object = 2: a RawExtension whose raw = 1 holds the wrapped
 * object, protobuf-object.ts). Objects decode by a schema into their JSON
 * form; an ERROR event's Status throws KubeApiError, as the JSON stream's
 * does (410 ⇒ Gone).
 */
import { UnreadableEventError } from '../../../../errors.js';
import type { ConnectionStats, WatchEvent } from '../../../../ports/index.js';
import { apiErrorFromResponse } from '../kube-errors.js';
import { decodeMessage, type MessageSchema } from './message-schema.js';
import { MalformedProtobufError } from './proto-reader.js';
import { protobufStatus, unwrapObject } from './protobuf-object.js';

/** The watch stream's media type, asked for and answered. */
export const PROTOBUF_WATCH_MEDIA_TYPE =
  'application/vnd.kubernetes.protobuf;stream=watch';

/**
 * A frame no watch event comes near: etcd refuses objects over 1.5 MiB
 * (`--max-request-bytes`), and a watch event wraps one object; twice that
 * leaves room for the envelope and a server run with a larger limit.
 */
export const MAX_FRAME_BYTES = 3 * 1024 * 1024;

const WATCH_EVENT: MessageSchema = {
  type: { n: 1, kind: 'string' },
  object: {
    n: 2,
    kind: 'message',
    message: { raw: { n: 1, kind: 'bytes' } },
  },
};

/** Yields each event of `body`, its objects decoded by `schema`. */
export async function* protobufWatchEvents<T>(
  what: string,
  body: AsyncIterable<unknown>,
  stats: ConnectionStats,
  schema: MessageSchema
): AsyncGenerator<WatchEvent<T>> {
  // The bytes not yet framed, as chunks: joined once a frame is complete,
  // so a frame of n chunks costs O(frame) copying, not O(n · frame).
  const chunks: Buffer[] = [];
  let buffered = 0;
  /** The length of the frame being gathered, once its header is in. */
  let length: number | undefined;
  for await (const chunk of body) {
    stats.bytesRead += (chunk as Buffer).length;
    chunks.push(chunk as Buffer);
    buffered += (chunk as Buffer).length;
    for (;;) {
      if (length === undefined) {
        if (buffered < 4) break;
        length = headOf(chunks, 4).readUInt32BE(0);
        if (length > MAX_FRAME_BYTES) {
          throw new UnreadableEventError(`${what}: a ${length}-byte frame`);
        }
      }
      if (buffered < 4 + length) break;
      const pending = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      const frame = (pending as Buffer).subarray(4, 4 + length);
      const rest = (pending as Buffer).subarray(4 + length);
      chunks.length = 0;
      if (rest.length > 0) chunks.push(rest);
      buffered = rest.length;
      length = undefined;
      yield readable(what, () => decodeWatchEvent<T>(what, frame, schema));
    }
  }
}

/** Returns the first `n` bytes of `chunks` (which hold at least `n`). */
const headOf = (chunks: readonly Buffer[], n: number): Buffer => {
  const first = chunks[0] as Buffer;
  return first.length >= n ? first : Buffer.concat(chunks).subarray(0, n);
};

/**
 * Returns `decode()`; a frame that does not decode (malformed protobuf, a
 * FieldsV1 that is not JSON) becomes UnreadableEventError, the watch's
 * poison, while an ERROR event's KubeApiError passes as it is.
 */
const readable = <T>(what: string, decode: () => T): T => {
  try {
    return decode();
  } catch (cause) {
    if (
      cause instanceof MalformedProtobufError ||
      cause instanceof SyntaxError
    ) {
      throw new UnreadableEventError(`${what}: an undecodable watch event`, {
        cause,
      });
    }
    throw cause;
  }
};

function decodeWatchEvent<T>(
  what: string,
  frame: Uint8Array,
  schema: MessageSchema
): WatchEvent<T> {
  const event = decodeMessage(WATCH_EVENT, frame) as {
    type?: string;
    object?: { raw?: Uint8Array };
  };
  const raw = event.object?.raw;
  if (event.type === undefined || raw === undefined) {
    throw new MalformedProtobufError(
      `${what}: an event without a type or object`
    );
  }
  if (event.type === 'ERROR') {
    const { code, text } = protobufStatus(what, raw);
    throw apiErrorFromResponse(what, code ?? 500, text, undefined);
  }
  return {
    type: event.type as WatchEvent<T>['type'],
    object: decodeMessage(schema, unwrapObject(what, raw)) as T,
  };
}
