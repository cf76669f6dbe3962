/**
 * Shared pieces of the event-to-key mapping (see `event-keys.ts`): the
 * outcome type, key building, `resolveControllerRef`, and the listers'
 * `GetPodDaemonSets` / `GetHistoryDaemonSets`
 * (client-go listers/apps/v1/daemonset_expansion.go).
 *
 * Invariants: a controller reference resolves only to a DaemonSet of kind
 * `DaemonSet` with the same namespace, name **and** UID; orphans wake only
 * DaemonSets of their namespace with a valid, non-empty selector matching
 * their non-empty labels; `keys` holds no duplicates.
 */
import { formatDaemonSetKey } from '../../keys.js';
import { parseLabelSelector } from '../k8s/label-selector.js';
import type {
  DaemonSet,
  KubeObject,
  LabelSelector,
  OwnerReference,
} from '../k8s/types.js';

/** A creation or deletion the expectations store must count for a key. */
export interface ObservedExpectation {
  key: string;
  observed: 'creation' | 'deletion';
}

/** A key to send after a delay (upstream `AddAfter`). */
export interface DelayedKey {
  key: string;
  afterMs: number;
}

/** What the watch-bridge must do for one watch event. */
export interface EventKeys {
  /** DaemonSet keys to enqueue now, without duplicates. */
  keys: string[];
  /** `creationObserved` / `deletionObserved` calls, in order. */
  expectations: ObservedExpectation[];
  /** Keys to enqueue again after a delay. */
  delayedKeys: DelayedKey[];
  /** Keys whose expectations must be deleted (`DeleteExpectations`). */
  dropExpectations: string[];
}

/** What the bridge knows about one cluster when an event arrives. */
export interface ClusterView {
  /** Cluster id, the first segment of every key. */
  cluster: string;
  /** Every DaemonSet of the cluster (all namespaces). */
  daemonSets: readonly DaemonSet[];
  /**
   * The kind a controller reference must name to be ours (upstream
   * `controllerKind`): DaemonSet, or AdvancedDaemonSet for the own kind.
   */
  ownerKind: string;
}

/** Returns an outcome that does nothing. */
export const noEventKeys = (): EventKeys => ({
  keys: [],
  expectations: [],
  delayedKeys: [],
  dropExpectations: [],
});

/** Adds `key` to `out.keys` unless already there; returns `out`. */
export const enqueueKey = (out: EventKeys, key: string): EventKeys => {
  if (!out.keys.includes(key)) out.keys.push(key);
  return out;
};

/** Returns the queue key of a DaemonSet in the viewed cluster. */
export const daemonSetKey = (view: ClusterView, ds: DaemonSet): string =>
  formatDaemonSetKey({
    cluster: view.cluster,
    namespace: ds.metadata?.namespace ?? '',
    name: ds.metadata?.name ?? '',
  });

/** Returns the object's namespace ('' for cluster-scoped objects). */
export const namespaceOf = (obj: KubeObject): string =>
  obj.metadata?.namespace ?? '';

/** Returns whether the object carries a deletion timestamp. */
export const hasDeletionTimestamp = (obj: KubeObject): boolean =>
  obj.metadata?.deletionTimestamp !== undefined &&
  obj.metadata.deletionTimestamp !== null;

/**
 * Returns the DaemonSet a controller reference points to, or `undefined`
 * when the kind is wrong, no DaemonSet has that name in `namespace`, or the
 * one found has another UID (upstream `resolveControllerRef`).
 */
export const resolveControllerRef = (
  view: ClusterView,
  namespace: string,
  ref: OwnerReference
): DaemonSet | undefined => {
  if (ref.kind !== view.ownerKind) return undefined;
  const ds = view.daemonSets.find(
    (d) => namespaceOf(d) === namespace && d.metadata?.name === ref.name
  );
  return ds?.metadata?.uid === ref.uid ? ds : undefined;
};

/** Returns whether two controller references are deep-equal. */
export const sameControllerRef = (
  a: OwnerReference | undefined,
  b: OwnerReference | undefined
): boolean =>
  a === b ||
  (a !== undefined &&
    b !== undefined &&
    a.apiVersion === b.apiVersion &&
    a.kind === b.kind &&
    a.name === b.name &&
    a.uid === b.uid &&
    a.controller === b.controller &&
    a.blockOwnerDeletion === b.blockOwnerDeletion);

/** Returns whether two label maps hold the same pairs (absent = empty). */
export const sameLabels = (
  a: Record<string, string> | undefined,
  b: Record<string, string> | undefined
): boolean => {
  const left = Object.entries(a ?? {});
  return (
    left.length === Object.keys(b ?? {}).length &&
    left.every(([k, v]) => b?.[k] === v)
  );
};

const isEmptySelector = (selector: LabelSelector | undefined): boolean =>
  selector === undefined ||
  selector === null ||
  (Object.keys(selector.matchLabels ?? {}).length === 0 &&
    (selector.matchExpressions ?? []).length === 0);

/**
 * Returns whether `selector` selects `labels` as upstream's
 * `LabelSelectorAsSelector` does (nil: nothing, empty: everything); an
 * invalid selector selects nothing.
 */
export const selectsSafely = (
  selector: LabelSelector | undefined,
  labels: Record<string, string>
): boolean => {
  try {
    return parseLabelSelector(selector)(labels);
  } catch {
    // An invalid selector (InvalidObjectError) matches nothing, as in
    // upstream's v1beta1 listers. Catch-all on purpose: one bad DaemonSet
    // must neither hide the others nor stall the cluster's event stream.
    return false;
  }
};

// A nil or empty selector must match nothing, not everything.
const selectorMatches = (
  selector: LabelSelector | undefined,
  labels: Record<string, string>
): boolean => !isEmptySelector(selector) && selectsSafely(selector, labels);

/**
 * Returns the DaemonSets of `obj`'s namespace whose selector matches its
 * labels (upstream `GetPodDaemonSets` / `GetHistoryDaemonSets`): none for an
 * unlabelled object; DaemonSets with an empty or invalid selector are
 * skipped.
 */
export const getDaemonSetsForObject = (
  view: ClusterView,
  obj: KubeObject
): DaemonSet[] => {
  const labels = obj.metadata?.labels ?? {};
  if (Object.keys(labels).length === 0) return [];
  const namespace = namespaceOf(obj);
  return view.daemonSets.filter(
    (ds) =>
      namespaceOf(ds) === namespace &&
      selectorMatches(ds.spec?.selector, labels)
  );
};

/**
 * Enqueues every DaemonSet of the view for which `wakes` holds, or throws:
 * a DaemonSet whose spec cannot be judged (a malformed template the API
 * server stored: `tolerations` as a map, `nodeSelectorTerms` as a string)
 * wakes itself, so its own sync meets and reports the bad spec, and the
 * others are judged as if it were not there. Catch-all on purpose, as in
 * `selectorMatches`: one DaemonSet must not stall the cluster's events.
 */
export const enqueueWaking = (
  view: ClusterView,
  wakes: (ds: DaemonSet) => boolean
): EventKeys => {
  const out = noEventKeys();
  for (const ds of view.daemonSets) {
    let woken: boolean;
    try {
      woken = wakes(ds);
    } catch {
      woken = true;
    }
    if (woken) enqueueKey(out, daemonSetKey(view, ds));
  }
  return out;
};

/** Returns the outcome "enqueue every DaemonSet selecting `obj`". */
export const enqueueMatching = (
  view: ClusterView,
  obj: KubeObject
): EventKeys =>
  getDaemonSetsForObject(view, obj).reduce(
    (out, ds) => enqueueKey(out, daemonSetKey(view, ds)),
    noEventKeys()
  );
