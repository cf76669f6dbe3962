/**
 * Objects for the checker's unit tests, as its watches would hold them: a
 * DaemonSet of `app: agent` pods, a run's node, and a daemon pod bound to
 * it, Ready since a fixed time.
 */
import type {
  DaemonSet,
  Node,
  Pod,
} from '../../campaign/checker/kube-objects.js';

/** The label every node of the run carries. */
export const RUN = { key: 'campaign', value: 'run' };

/** When every fixture pod turned Ready. */
export const READY_SINCE = '2026-01-01T00:00:00Z';

/** A Ready node of the run, with `taints`. */
export const runNode = (
  name: string,
  taints: { key: string; value: string; effect: string }[] = []
): Node =>
  ({
    metadata: { name, labels: { [RUN.key]: RUN.value } },
    spec: { taints },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  }) as unknown as Node;

/** A Running, Ready pod of the DaemonSet `dsName` (uid `dsUid`) on node n-0. */
export const readyDaemonPod = (
  name: string,
  dsUid: string,
  dsName: string,
  extra: { uid?: string; labels?: Record<string, string> } = {}
): Pod =>
  ({
    metadata: {
      name,
      namespace: 'ns',
      ...(extra.uid === undefined ? {} : { uid: extra.uid }),
      labels: { app: 'agent', ...extra.labels },
      ownerReferences: [
        { uid: dsUid, controller: true, kind: 'DaemonSet', name: dsName },
      ],
    },
    spec: { nodeName: 'n-0', containers: [] },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: READY_SINCE },
      ],
    },
  }) as unknown as Pod;

/** A DaemonSet of `app: agent` pods, with `updateStrategy` if given. */
export const agentDaemonSet = (
  name: string,
  uid: string,
  generation: number,
  updateStrategy?: unknown
): DaemonSet =>
  ({
    metadata: { name, namespace: 'ns', uid, generation },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec: {} },
      ...(updateStrategy === undefined ? {} : { updateStrategy }),
    },
  }) as unknown as DaemonSet;
