/**
 * The fields of a core/v1 Node a sync or the bridge reads: its name, labels
 * and taints (upstream's nodeShouldRunDaemonPod looks at nothing else; the
 * bridge compares labels and taints, timeAdded as an instant, and keeps them
 * in its node index) and the version each event carries. A node's status —
 * the bulk of it, rewritten by every kubelet report — is never read.
 * Numbers: k8s.io/api core/v1 `generated.proto` (1.36); fields in the order
 * JSON prints them, as the node index compares their text.
 */
import type { MessageSchema } from './message-schema.js';

const TAINT: MessageSchema = {
  key: { n: 1, kind: 'string', keepZero: true },
  value: { n: 2, kind: 'string' },
  effect: { n: 3, kind: 'string', keepZero: true },
  timeAdded: { n: 4, kind: 'time', keepZero: true },
};

/** A Node as placement reads it. */
export const NODE: MessageSchema = {
  metadata: {
    n: 1,
    kind: 'message',
    message: {
      name: { n: 1, kind: 'string' },
      resourceVersion: { n: 6, kind: 'string' },
      labels: { n: 11, kind: 'map' },
    },
  },
  spec: {
    n: 2,
    kind: 'message',
    message: {
      taints: { n: 5, kind: 'message', message: TAINT, repeated: true },
    },
  },
};
