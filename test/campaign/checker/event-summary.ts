/**
 * One-line summaries of watch events for the history: the fields the
 * invariants read, so a printed history shows why the checker decided what
 * it did, and repeats (node heartbeats) can be recognised and skipped.
 */
import { isReady, keyOf, targetNode } from './cluster-view.js';
import type { Subject } from './history.js';
import type {
  ControllerRevision,
  DaemonSet,
  KindObjects,
  Node,
  Pod,
  WatchedKind,
} from './kube-objects.js';
import { isDaemonSetKind, REVISION_HASH_LABEL } from './kube-objects.js';

/** A summary line and what it is about. */
export interface Summary {
  /** The object's state, without the event type (compared for repeats). */
  state: string;
  subjects: Subject[];
}

const controllerRef = (obj: { metadata: Pod['metadata'] }) =>
  obj.metadata.ownerReferences?.find((r) => r.controller === true);

const dsSubject = (namespace: string | undefined, name: string): Subject =>
  `ds:${keyOf({ namespace, name })}`;

const summarizePod = (pod: Pod): Summary => {
  const owner = controllerRef(pod);
  const node = targetNode(pod);
  const hash = pod.metadata.labels?.[REVISION_HASH_LABEL];
  const parts = [
    `pod ${pod.metadata.name}`,
    owner ? `owner=${owner.kind}/${owner.name}` : 'no-owner',
    `node=${node ?? '-'}${pod.spec?.nodeName ? '' : '(unbound)'}`,
    `phase=${pod.status?.phase ?? '-'}`,
    `ready=${isReady(pod)}`,
    hash ? `hash=${hash}` : '',
    pod.metadata.deletionTimestamp ? 'terminating' : '',
  ];
  const subjects: Subject[] = [`pod:${pod.metadata.name}`];
  if (node) subjects.push(`node:${node}`);
  if (isDaemonSetKind(owner?.kind) && owner?.name) {
    subjects.push(dsSubject(pod.metadata.namespace, owner.name));
  }
  return { state: parts.filter(Boolean).join(' '), subjects };
};

const summarizeNode = (node: Node): Summary => {
  const labels = Object.entries(node.metadata.labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join(',');
  const taints = (node.spec?.taints ?? [])
    .map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`)
    .join(',');
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  return {
    state: [
      `node ${node.metadata.name}`,
      `ready=${ready?.status ?? '-'}`,
      node.spec?.unschedulable ? 'unschedulable' : '',
      `taints=[${taints}]`,
      `labels=[${labels}]`,
    ]
      .filter(Boolean)
      .join(' '),
    subjects: [`node:${node.metadata.name}`],
  };
};

const summarizeDaemonSet = (ds: DaemonSet): Summary => {
  const s = ds.status ?? {};
  const strategy = ds.spec.updateStrategy;
  return {
    state: [
      `ds ${keyOf(ds.metadata)}`,
      `generation=${ds.metadata.generation ?? '-'}`,
      `observed=${s.observedGeneration ?? '-'}`,
      `strategy=${strategy?.type ?? '-'}${JSON.stringify(strategy?.rollingUpdate ?? {})}`,
      `desired=${s.desiredNumberScheduled ?? 0}`,
      `current=${s.currentNumberScheduled ?? 0}`,
      `ready=${s.numberReady ?? 0}`,
      `available=${s.numberAvailable ?? 0}`,
      `updated=${s.updatedNumberScheduled ?? 0}`,
      `misscheduled=${s.numberMisscheduled ?? 0}`,
      ds.metadata.deletionTimestamp ? 'terminating' : '',
    ]
      .filter(Boolean)
      .join(' '),
    subjects: [`ds:${keyOf(ds.metadata)}`],
  };
};

const summarizeRevision = (cr: ControllerRevision): Summary => {
  const owner = controllerRef(cr);
  return {
    state: [
      `revision ${cr.metadata.name}`,
      `owner=${owner?.name ?? '-'}`,
      `revision=${cr.revision ?? '-'}`,
      `hash=${cr.metadata.labels?.[REVISION_HASH_LABEL] ?? '-'}`,
    ].join(' '),
    subjects: owner?.name ? [dsSubject(cr.metadata.namespace, owner.name)] : [],
  };
};

/** Returns the summary of an object of a watched kind. */
export const summarize = <K extends WatchedKind>(
  kind: K,
  obj: KindObjects[K]
): Summary => {
  switch (kind) {
    case 'pod':
      return summarizePod(obj as Pod);
    case 'node':
      return summarizeNode(obj as Node);
    case 'daemonSet':
      return summarizeDaemonSet(obj as DaemonSet);
    default:
      return summarizeRevision(obj as ControllerRevision);
  }
};
