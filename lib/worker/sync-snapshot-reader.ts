/**
 * A ClusterReader for one sync that reads nodes and the DaemonSet's pods
 * once and answers later reads of the same sync from that snapshot.
 * Upstream's sync reads pods four times (history, manage, rolling update,
 * status), all from its informer cache, which does not yet show the sync's
 * own writes either: writes are covered by expectations (a sync that created
 * or deleted pods skips the rolling update) and the status they change is
 * written by the next sync, which the resulting watch events cause.
 * Revisions are read live: history creates and prunes them within a sync.
 * Lists are shared, not copied (copying 5,000 nodes and pods cost 500 ms a
 * sync): the sync core never changes what it reads — the cache freezes
 * what it keeps, and the tests' fake cluster freezes what it returns.
 */

import { parseResourceVersion } from '../policy/resource-version.js';
import type { ClusterReader, SeenVersions, WorkQueue } from '../ports/index.js';
import { isControlledBy } from '../reconcile/k8s/controller-ref.js';
import type { DaemonSet, Node, Pod } from '../reconcile/k8s/types.js';

/**
 * Seen versions that make every cached list read the latest state (a
 * consistent list): for a sync whose expectations were dropped.
 */
export const LATEST_STATE: SeenVersions = { pods: 'latest', nodes: 'latest' };

/**
 * Returns how a sync of `key` records the newest pod it created as seen,
 * so that the key's later syncs read pods at least that fresh (SyncDeps).
 */
export const notingOwnPods =
  (queue: Pick<WorkQueue, 'noteSeen'>, key: string) =>
  async (resourceVersion: string): Promise<void> => {
    await queue.noteSeen?.(key, { collection: 'pods', resourceVersion });
  };

/**
 * Returns the version a list must reach: the newer of two (a version that
 * is not a number, such as 'latest', wins: it asks for a consistent list).
 */
export const newerVersion = (
  a: string | undefined,
  b: string | undefined
): string | undefined => {
  if (a === undefined || b === undefined) return a ?? b;
  const [x, y] = [parseResourceVersion(a), parseResourceVersion(b)];
  if (x === undefined) return a;
  if (y === undefined) return b;
  return x >= y ? a : b;
};

/** Memoises node and pod lists for the lifetime of one sync. */
export class SyncSnapshotReader implements ClusterReader {
  readonly #inner: ClusterReader;
  #nodes: Promise<Node[]> | undefined;
  readonly #pods = new Map<string, Promise<Pod[]>>();

  readonly #seen: SeenVersions;
  readonly #seenNow: (() => Promise<SeenVersions>) | undefined;

  /**
   * `seen`: how fresh cached lists must be (from the sync's wake-ups);
   * `seenNow` reads them again when pods are first listed — after the sync
   * found its expectations satisfied, so the pod versions the bridge noted
   * before lowering them are in (WorkQueue.noteSeen).
   */
  constructor(
    inner: ClusterReader,
    seen: SeenVersions = {},
    seenNow?: () => Promise<SeenVersions>
  ) {
    this.#inner = inner;
    this.#seen = seen;
    this.#seenNow = seenNow;
  }

  getDaemonSet(namespace: string, name: string) {
    return this.#inner.getDaemonSet(namespace, name);
  }

  getDaemonSetFresh(namespace: string, name: string) {
    return this.#inner.getDaemonSetFresh(namespace, name);
  }

  listNodes(): Promise<Node[]> {
    this.#nodes ??= this.#inner.listNodes(this.#seen.nodes);
    return this.#nodes;
  }

  listPods(namespace: string, owner: DaemonSet): Promise<Pod[]> {
    const id = `${namespace}/${owner.metadata?.uid ?? ''}`;
    let pods = this.#pods.get(id);
    if (pods === undefined) {
      pods = this.#withReleases(namespace, owner);
      this.#pods.set(id, pods);
    }
    return pods;
  }

  /**
   * The owner's pods by selector, plus the pods the bridge saw it own
   * outside its selector (`seen.releasePods`), read live, so that the
   * sync releases them as upstream's namespace-wide list lets it.
   */
  async #withReleases(namespace: string, owner: DaemonSet): Promise<Pod[]> {
    const now = await this.#seenNow?.();
    const selected = await this.#inner.listPods(
      namespace,
      owner,
      newerVersion(this.#seen.pods, now?.pods)
    );
    const listed = new Set(selected.map((p) => p.metadata?.name));
    const outside: Pod[] = [];
    for (const name of this.#seen.releasePods ?? []) {
      if (listed.has(name)) continue;
      const pod = await this.#inner.getPod(namespace, name);
      if (pod !== undefined && isControlledBy(pod, owner)) outside.push(pod);
    }
    return outside.length > 0 ? [...selected, ...outside] : selected;
  }

  getPod(namespace: string, name: string) {
    return this.#inner.getPod(namespace, name);
  }

  listControllerRevisions(namespace: string) {
    return this.#inner.listControllerRevisions(namespace);
  }

  getControllerRevisionFresh(namespace: string, name: string) {
    return this.#inner.getControllerRevisionFresh(namespace, name);
  }
}
