/**
 * A ClusterReader whose node and pod lists come from collections a warm
 * container keeps current by watch (watched-collection.ts), so a sync reads
 * what changed since the container's last sync instead of the whole
 * cluster. DaemonSets and revisions are still read from the API server: one
 * small object, and a short list by the DaemonSet's selector.
 *
 * Kept per container and cluster: the nodes, and the pods of the
 * MAX_POD_COLLECTIONS DaemonSets read most recently (a DaemonSet's pods are
 * watched by its selector); in all, no more objects than the container's
 * CacheBudget allows. Kept objects lose what no sync reads: a pod keeps
 * the fields of protobuf/pod-schema.ts (of its managed fields, the owner
 * references' writers, which the fight guard reads); a node, those of
 * protobuf/node-schema.ts (name, labels, taints). Both are watched in
 * protobuf.
 */
import type { ClusterReader } from '../../ports/index.js';
import type { DaemonSetKind } from '../../reconcile/k8s/daemon-set-kind.js';
import type { DaemonSet, Node, Pod } from '../../reconcile/k8s/types.js';
import {
  type CacheBudget,
  containerCacheBudget,
} from './client/cache-budget.js';
import type { KubeHttp } from './client/kube-http.js';
import { labelSelectorQuery } from './client/label-selector-query.js';
import {
  type MessageSchema,
  projectMessage,
} from './client/protobuf/message-schema.js';
import { NODE } from './client/protobuf/node-schema.js';
import { POD } from './client/protobuf/pod-schema.js';
import {
  type CollectionSource,
  WatchedCollection,
  type WatchedCollectionOptions,
} from './client/watched-collection.js';
import { KubeClusterReader } from './kube-cluster-reader.js';
import { paths } from './paths.js';

/** Timings of every collection (see WatchedCollectionOptions). */
export const CACHE_TIMINGS = {
  // The bridge queued the key after the event reached it; the same event
  // reaches this watch at about the same time.
  waitMs: 1_000,
  // Healthy streams bring a bookmark about every minute.
  silentMs: 70_000,
  // Far below the lifetime of the versions the bridge records per key.
  idleMs: 10 * 60_000,
} as const;

/** DaemonSets whose pods one container keeps per cluster. */
export const MAX_POD_COLLECTIONS = 16;

/**
 * Keeps the fields a sync reads (pod-schema.ts), of managed fields only
 * those that record owner-reference writers: a pod from a JSON list and the
 * same pod from the protobuf watch are then the same object.
 */
const compactPod = (pod: Pod): Pod => {
  const kept = projectMessage(POD, pod as Record<string, unknown>) as Pod;
  const managed = kept.metadata?.managedFields;
  if (managed === undefined) return kept;
  return {
    ...kept,
    metadata: {
      ...kept.metadata,
      managedFields: managed.filter(
        (e) =>
          (e.fieldsV1 as { 'f:metadata'?: Record<string, unknown> })?.[
            'f:metadata'
          ]?.['f:ownerReferences'] !== undefined
      ),
    },
  };
};

/** Keeps what placement reads of a node (node-schema.ts): no status. */
const compactNode = (node: Node): Node =>
  projectMessage(NODE, node as Record<string, unknown>) as Node;

/** Reads a cluster through watched collections. */
export class KubeCachedClusterReader implements ClusterReader {
  readonly #http: KubeHttp;
  readonly #direct: KubeClusterReader;
  readonly #nodes: WatchedCollection<Node>;
  /** By namespace and selector, least recently read first. */
  readonly #pods = new Map<string, WatchedCollection<Pod>>();
  readonly #timings: Omit<WatchedCollectionOptions<Pod>, 'compact'>;

  readonly #budget: CacheBudget;

  constructor({
    http,
    kind,
    timings = CACHE_TIMINGS,
    budget = containerCacheBudget,
  }: {
    http: KubeHttp;
    kind: DaemonSetKind;
    timings?: Omit<WatchedCollectionOptions<Pod>, 'compact'>;
    /** Shared by every reader of the container (default: the module's). */
    budget?: CacheBudget;
  }) {
    this.#http = http;
    this.#budget = budget;
    this.#direct = new KubeClusterReader({ http, kind });
    this.#timings = timings;
    this.#nodes = new WatchedCollection(
      this.#source<Node>('nodes', paths.nodes(), undefined, NODE, compactNode),
      { ...timings, compact: compactNode }
    );
  }

  getDaemonSet(namespace: string, name: string) {
    return this.#direct.getDaemonSet(namespace, name);
  }

  getDaemonSetFresh(namespace: string, name: string) {
    return this.#direct.getDaemonSetFresh(namespace, name);
  }

  listNodes(seen?: string): Promise<Node[]> {
    return this.#read(this.#nodes, seen);
  }

  listPods(namespace: string, owner: DaemonSet, seen?: string) {
    const selector = labelSelectorQuery(owner.spec?.selector);
    const id = `${namespace}?${selector ?? ''}`;
    let pods = this.#pods.get(id);
    if (pods === undefined) {
      pods = new WatchedCollection(
        this.#source<Pod>(
          `pods in ${namespace}`,
          paths.pods(namespace),
          selector,
          POD,
          compactPod
        ),
        { ...this.#timings, compact: compactPod }
      );
    }
    this.#pods.delete(id);
    this.#pods.set(id, pods);
    for (const [oldest, collection] of this.#pods) {
      if (this.#pods.size <= MAX_POD_COLLECTIONS) break;
      this.#budget.forget(collection);
      collection.close();
      this.#pods.delete(oldest);
    }
    return this.#read(pods, seen);
  }

  /** Reads a collection, then lets the budget weigh it (and drop others). */
  async #read<T extends Node | Pod>(
    collection: WatchedCollection<T>,
    seen: string | undefined
  ): Promise<T[]> {
    const items = await collection.read(seen);
    this.#budget.touched(collection);
    return items;
  }

  getPod(namespace: string, name: string) {
    return this.#direct.getPod(namespace, name);
  }

  listControllerRevisions(namespace: string) {
    return this.#direct.listControllerRevisions(namespace);
  }

  getControllerRevisionFresh(namespace: string, name: string) {
    return this.#direct.getControllerRevisionFresh(namespace, name);
  }

  /** Stops every watch. */
  close(): void {
    for (const collection of [this.#nodes, ...this.#pods.values()]) {
      this.#budget.forget(collection);
      collection.close();
    }
    this.#pods.clear();
  }

  /** How many objects the collections keep. */
  get size(): number {
    let n = this.#nodes.size;
    for (const pods of this.#pods.values()) n += pods.size;
    return n;
  }

  /** What the collections did, summed (for the benchmarks). */
  stats() {
    const all = [this.#nodes, ...this.#pods.values()];
    const sum = (k: keyof WatchedCollection<Node>['stats']) =>
      all.reduce((n, c) => n + c.stats[k], 0);
    return {
      cachedReads: sum('cachedReads'),
      lists: sum('lists'),
      resumes: sum('resumes'),
    };
  }

  /**
   * Watched in protobuf, decoded by `protobuf` (about half the bytes);
   * listed a page at a time, each compacted as it arrives.
   */
  #source<T extends Node | Pod>(
    what: string,
    path: string,
    labelSelector: string | undefined,
    protobuf: MessageSchema,
    compact: (obj: T) => T
  ): CollectionSource<T> {
    return {
      list: (minVersion) =>
        this.#http.listWithVersion<T>(
          `list ${what}`,
          path,
          {
            labelSelector,
            ...(minVersion === undefined
              ? {}
              : {
                  resourceVersion: minVersion,
                  resourceVersionMatch: 'NotOlderThan',
                }),
          },
          undefined,
          compact
        ),
      watch: (resourceVersion, signal) =>
        this.#http.watch<T>(
          `watch ${what}`,
          path,
          { labelSelector, resourceVersion, allowWatchBookmarks: true },
          signal,
          protobuf
        ),
    };
  }
}
