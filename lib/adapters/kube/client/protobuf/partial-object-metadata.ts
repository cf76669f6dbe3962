/**
 * A write answered with the written object's metadata only: the API server
 * transforms write answers as it does reads. In protobuf, where the server
 * speaks it, a DaemonSet pod's create answers about 1.0 KiB against 2.3 KiB
 * as JSON and 4.1 KiB whole (kube-apiserver 1.36); a server that cannot
 * transform answers JSON, or the whole object, which read the same.
 */
import { decodeMessage, type MessageSchema } from './message-schema.js';
import { PROTOBUF_MEDIA_TYPE, unwrapObject } from './protobuf-object.js';

/** The answer a metadata-only write asks for, best first. */
export const METADATA_ANSWER = [
  `${PROTOBUF_MEDIA_TYPE};as=PartialObjectMetadata;g=meta.k8s.io;v=v1`,
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
  'application/json',
].join(', ');

/** What a sync reads of a write's answer. */
export interface WrittenMetadata {
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
  };
}

/**
 * metav1.PartialObjectMetadata (metadata = 1), and equally any object whose
 * field 1 is its ObjectMeta (a whole Pod). A Status (a delete's answer for
 * some kinds) has its ListMeta there: only deletes, which ignore the
 * answer, can get one.
 */
const PARTIAL_OBJECT_METADATA: MessageSchema = {
  metadata: {
    n: 1,
    kind: 'message',
    message: {
      name: { n: 1, kind: 'string' },
      namespace: { n: 3, kind: 'string' },
      uid: { n: 5, kind: 'string' },
      resourceVersion: { n: 6, kind: 'string' },
    },
  },
};

/** The metadata of a write's 2xx answer, as protobuf or JSON. */
export const writtenMetadata = (
  what: string,
  contentType: string,
  body: Buffer
): WrittenMetadata => {
  if (contentType.startsWith(PROTOBUF_MEDIA_TYPE)) {
    return decodeMessage(
      PARTIAL_OBJECT_METADATA,
      unwrapObject(what, body)
    ) as WrittenMetadata;
  }
  return body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
};
