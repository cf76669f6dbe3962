/**
 * The bridge's list of a cluster's DaemonSets (upstream's DaemonSet lister),
 * which the event handlers resolve owners and selectors against. Listed at
 * start and kept current by the DaemonSet watch; a replayed event older than
 * what the list showed never rolls an entry back.
 */
import { formatDaemonSetKey } from '../keys.js';
import type { ClusterView } from '../reconcile/event-keys/index.js';
import type { DaemonSet, KubeObject } from '../reconcile/k8s/types.js';

const idOf = (o: KubeObject): string =>
  `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/**
 * Returns whether `candidate` is at least as new as `current` (etcd
 * revisions are increasing integers; anything else counts as newer).
 */
const notOlder = (candidate: string, current: string): boolean => {
  if (!/^\d+$/.test(candidate) || !/^\d+$/.test(current)) return true;
  return BigInt(candidate) >= BigInt(current);
};

/** DaemonSets by namespace/name, as a ClusterView for the handlers. */
export class DaemonSetView {
  readonly #byId = new Map<string, DaemonSet>();
  readonly #cluster: string;
  readonly #ownerKind: string;
  #view: ClusterView | undefined;

  constructor(cluster: string, ownerKind: string) {
    this.#cluster = cluster;
    this.#ownerKind = ownerKind;
  }

  /** Replaces the contents with a fresh list; returns the ones that vanished. */
  reset(items: readonly DaemonSet[]): DaemonSet[] {
    const fresh = new Map(items.map((ds) => [idOf(ds), ds]));
    const vanished = [...this.#byId.entries()]
      .filter(([id]) => !fresh.has(id))
      .map(([, ds]) => ds);
    this.#byId.clear();
    for (const [id, ds] of fresh) this.#byId.set(id, ds);
    this.#view = undefined;
    return vanished;
  }

  /** Returns the entry as currently known. */
  get(ds: DaemonSet): DaemonSet | undefined {
    return this.#byId.get(idOf(ds));
  }

  /** Stores an added or modified DaemonSet unless the entry is newer. */
  put(ds: DaemonSet): void {
    const cur = this.#byId.get(idOf(ds));
    const rv = ds.metadata?.resourceVersion ?? '';
    if (cur && !notOlder(rv, cur.metadata?.resourceVersion ?? '')) return;
    this.#byId.set(idOf(ds), ds);
    this.#view = undefined;
  }

  /** Forgets a deleted DaemonSet unless a newer one (recreated) is stored. */
  remove(ds: DaemonSet): void {
    const cur = this.#byId.get(idOf(ds));
    if (cur === undefined) return;
    const rv = ds.metadata?.resourceVersion ?? '';
    if (!notOlder(rv, cur.metadata?.resourceVersion ?? '')) return;
    this.#byId.delete(idOf(ds));
    this.#view = undefined;
  }

  /** Returns every DaemonSet's key. */
  keys(): string[] {
    return [...this.#byId.values()].map((ds) =>
      formatDaemonSetKey({
        cluster: this.#cluster,
        namespace: ds.metadata?.namespace ?? '',
        name: ds.metadata?.name ?? '',
      })
    );
  }

  /** Returns the view the event handlers read. */
  view(): ClusterView {
    this.#view ??= {
      cluster: this.#cluster,
      daemonSets: [...this.#byId.values()],
      ownerKind: this.#ownerKind,
    };
    return this.#view;
  }
}
