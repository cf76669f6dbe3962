/**
 * The checker's own picture of the run: the last version of every watched
 * object, and the pod facts the invariants are phrased in (daemon pods,
 * live, available, target node), each ported from upstream's meaning.
 */
import type {
  ControllerRevision,
  DaemonSet,
  KindObjects,
  Node,
  Pod,
  WatchedKind,
} from './kube-objects.js';

/** Watched objects by name (namespace-scoped kinds live in one namespace). */
export class ClusterView {
  readonly pods = new Map<string, Pod>();
  readonly nodes = new Map<string, Node>();
  readonly daemonSets = new Map<string, DaemonSet>();
  readonly revisions = new Map<string, ControllerRevision>();

  /** Returns the store of one kind. */
  store<K extends WatchedKind>(kind: K): Map<string, KindObjects[K]> {
    const stores: { [P in WatchedKind]: Map<string, KindObjects[P]> } = {
      pod: this.pods,
      node: this.nodes,
      daemonSet: this.daemonSets,
      revision: this.revisions,
    };
    return stores[kind];
  }

  /** Returns the DaemonSets that are not being deleted. */
  activeDaemonSets(): DaemonSet[] {
    return [...this.daemonSets.values()].filter(
      (ds) => !ds.metadata.deletionTimestamp
    );
  }

  /** Returns the pods whose controller reference is the DaemonSet. */
  daemonPods(ds: DaemonSet): Pod[] {
    return [...this.pods.values()].filter(
      (p) => controllerUid(p.metadata) === ds.metadata.uid
    );
  }

  /** Returns the DaemonSet controlling the pod, if it is one we watch. */
  ownerOf(pod: Pod): DaemonSet | undefined {
    const uid = controllerUid(pod.metadata);
    return [...this.daemonSets.values()].find((d) => d.metadata.uid === uid);
  }
}

/** Returns the uid of the object's controller reference. */
export const controllerUid = (meta: {
  ownerReferences?: { uid: string; controller?: boolean }[];
}): string | undefined =>
  meta.ownerReferences?.find((r) => r.controller === true)?.uid;

/** Live: neither terminating nor finished (Failed/Succeeded). */
export const isLive = (pod: Pod): boolean =>
  !pod.metadata.deletionTimestamp &&
  pod.status?.phase !== 'Failed' &&
  pod.status?.phase !== 'Succeeded';

/** Returns whether the pod's Ready condition is True (upstream IsPodReady). */
export const isReady = (pod: Pod): boolean =>
  readyCondition(pod)?.status === 'True';

const readyCondition = (pod: Pod) =>
  pod.status?.conditions?.find((c) => c.type === 'Ready');

/**
 * Returns upstream IsPodAvailable for a live pod: Ready, and Ready for longer
 * than minReadySeconds at `atMs` (lastTransitionTime has second precision,
 * as upstream reads it).
 */
export const isAvailable = (
  pod: Pod,
  minReadySeconds: number,
  atMs: number
): boolean => {
  if (!isLive(pod) || !isReady(pod)) return false;
  if (minReadySeconds === 0) return true;
  const since = Date.parse(readyCondition(pod)?.lastTransitionTime ?? '');
  return !Number.isNaN(since) && since + minReadySeconds * 1000 < atMs;
};

/**
 * Returns the node a daemon pod is for (upstream GetTargetNodeName):
 * spec.nodeName once bound, else the single `metadata.name In` field of its
 * required node affinity, which the controller sets on every pod it makes.
 */
export const targetNode = (pod: Pod): string | undefined => {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const terms =
    pod.spec?.affinity?.nodeAffinity
      ?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const term of terms) {
    for (const field of term.matchFields ?? []) {
      if (field.key === 'metadata.name' && field.operator === 'In') {
        return field.values?.length === 1 ? field.values[0] : undefined;
      }
    }
  }
  return undefined;
};

/** Groups pods by target node, dropping pods with none. */
export const podsByNode = (pods: readonly Pod[]): Map<string, Pod[]> => {
  const byNode = new Map<string, Pod[]>();
  for (const pod of pods) {
    const node = targetNode(pod);
    if (node === undefined) continue;
    byNode.set(node, [...(byNode.get(node) ?? []), pod]);
  }
  return byNode;
};

/** Returns "namespace/name" of an object. */
export const keyOf = (meta: { name: string; namespace?: string }): string =>
  meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
