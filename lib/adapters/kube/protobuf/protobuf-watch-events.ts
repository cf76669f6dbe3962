/**
 * The events of a protobuf watch answer (`Accept:
 * application/vnd.kubernetes.protobuf;stream=watch`), about half the bytes
 * of its JSON: frames of a 4-byte big-endian length and a metav1.WatchEvent
 * (type = 1, object = 2: a RawExtension whose raw = 1 holds the wrapped
 * object, protobuf-object.ts). Objects decode by a schema into their JSON
 * form; an ERROR event's Status throws KubeApiError, as the JSON stream's
 * does (410 ⇒ Gone).
 */
import type { ConnectionStats, WatchEvent } from '../../../ports/index.js';
import { apiErrorFromResponse } from '../kube-errors.js';
import { decodeMessage, type MessageSchema } from './message-schema.js';
import { MalformedProtobufError } from './proto-reader.js';
import { protobufStatus, unwrapObject } from './protobuf-object.js';

/** The watch stream's media type, asked for and answered. */
export const PROTOBUF_WATCH_MEDIA_TYPE =
  'application/vnd.kubernetes.protobuf;stream=watch';

/** A frame no watch event comes near (a pod is a few KiB). */
const MAX_FRAME_BYTES = 64 * 1024 * 1024;

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
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of body) {
    stats.bytesRead += (chunk as Buffer).length;
    pending =
      pending.length === 0
        ? (chunk as Buffer)
        : Buffer.concat([pending, chunk as Buffer]);
    while (pending.length >= 4) {
      const length = pending.readUInt32BE(0);
      if (length > MAX_FRAME_BYTES) {
        throw new MalformedProtobufError(`${what}: a ${length}-byte frame`);
      }
      if (pending.length < 4 + length) break;
      const frame = pending.subarray(4, 4 + length);
      pending = pending.subarray(4 + length);
      yield decodeWatchEvent<T>(what, frame, schema);
    }
  }
}

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
