/**
 * What the bridge does with the events of one cluster: upstream's handlers
 * applied to each event (keys queued, expectations lowered), against the
 * DaemonSet list and the node index it keeps; and the repairs after a 410
 * Gone (relist and diff DaemonSets and nodes; for pods, whose changes cannot
 * be diffed without a cache, drop every expectation and queue every
 * DaemonSet).
 */
import type {
  Clock,
  ClusterWatch,
  ExpectationsStore,
  SeenCollection,
  SeenVersion,
  WatchedResource,
  WorkQueue,
} from '../ports/index.js';
import * as handlers from '../reconcile/event-keys/index.js';
import * as resumed from '../reconcile/event-keys/resumed.js';
import type {
  ControllerRevision,
  DaemonSet,
  KubeObject,
  Node,
  Pod,
} from '../reconcile/k8s/types.js';
import { applyEventKeys, queueEach } from './apply-event-keys.js';
import { DaemonSetView } from './daemon-set-view.js';
import { NodeIndex } from './node-index.js';
import { PendingEventKeys } from './pending-event-keys.js';
import { PodMemos } from './pod-memos.js';

/** The collections the bridge watches, in the order it starts them. */
export const RESOURCES: readonly WatchedResource[] = [
  'daemonSets',
  'pods',
  'nodes',
  'revisions',
];
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** The event handling of one cluster's bridge run. */
export class ClusterEvents {
  readonly #view: DaemonSetView;
  /** The labels and taints of every node, as a checkpoint saves them. */
  readonly nodeIndex = new NodeIndex();
  /** Each pod's controller and readiness as last seen in this run. */
  readonly #pods = new PodMemos();
  /** Pod events' work not yet written (see flushPods). */
  #podWork = new PendingEventKeys();
  /** The batch being written; a failed one is finished before the next. */
  #writing: PendingEventKeys | undefined;
  readonly #d: {
    watch: ClusterWatch;
    queue: WorkQueue;
    expectations: ExpectationsStore;
    clock: Clock;
  };

  constructor(deps: {
    cluster: string;
    /** The kind of DaemonSet this cluster's reconciler owns. */
    ownerKind: string;
    watch: ClusterWatch;
    queue: WorkQueue;
    expectations: ExpectationsStore;
    clock: Clock;
  }) {
    this.#d = deps;
    this.#view = new DaemonSetView(deps.cluster, deps.ownerKind);
  }

  /** Handles one event of `resource`. */
  onEvent(
    resource: WatchedResource,
    type: WatchEventType,
    obj: KubeObject
  ): Promise<void> {
    switch (resource) {
      case 'daemonSets':
        return this.#onDaemonSet(type, obj);
      case 'pods':
        return this.#onPod(type, obj);
      case 'nodes':
        return this.#onNode(type, obj);
      case 'revisions':
        return this.#onRevision(type, obj as ControllerRevision);
    }
  }

  /** Repairs after a 410 on `resource`; returns where to resume. */
  async onGone(resource: WatchedResource): Promise<string> {
    switch (resource) {
      case 'daemonSets': {
        const rv = await this.relistDaemonSets();
        await this.enqueueAll();
        return rv;
      }
      case 'pods':
        return this.resumePodsWithoutHistory();
      case 'nodes':
        return this.relistNodes();
      case 'revisions':
        await this.enqueueAll();
        return this.currentVersion('revisions');
    }
  }

  async #apply(out: handlers.EventKeys, seen?: SeenVersion): Promise<void> {
    await applyEventKeys(out, this.#d, seen);
  }

  /**
   * Queues every DaemonSet of the cluster (all, even when one fails); `anew`
   * also those that look queued already (after an unfence).
   */
  async enqueueAll(anew = false, seen?: SeenVersion): Promise<void> {
    const { queue } = this.#d;
    await queueEach(this.#view.keys(), (k) =>
      anew ? queue.addAnew(k) : queue.add(k, seen)
    );
  }

  /** Returns the collection's current resourceVersion (a one-item list). */
  currentVersion(resource: WatchedResource): Promise<string> {
    return this.#d.watch.currentVersion(resource);
  }

  /** Lists DaemonSets; DaemonSets gone meanwhile are handled as deleted. */
  async relistDaemonSets(): Promise<string> {
    const { items, resourceVersion } =
      await this.#d.watch.list<DaemonSet>('daemonSets');
    for (const gone of this.#view.reset(items)) {
      await this.#apply(handlers.deleteDaemonset(this.#view.view(), gone));
    }
    return resourceVersion;
  }

  /**
   * Lists nodes and handles every difference from the index as an event
   * (`wake` false: only rebuild the index, when every key is queued anyway).
   */
  async relistNodes(wake = true): Promise<string> {
    const { items, resourceVersion } = await this.#d.watch.list<Node>('nodes');
    const seen = new Set<string>();
    for (const node of items) {
      seen.add(node.metadata?.name ?? '');
      await this.#onNode('MODIFIED', node, wake);
    }
    for (const name of this.nodeIndex.names()) {
      if (!seen.has(name)) this.nodeIndex.forget(name);
    }
    return resourceVersion;
  }

  async #onNode(type: WatchEventType, node: Node, wake = true): Promise<void> {
    const name = node.metadata?.name ?? '';
    if (type === 'DELETED') return this.nodeIndex.forget(name);
    const old = this.nodeIndex.get(name);
    if (wake) {
      await this.#apply(
        resumed.updateNodeResumed(this.#view.view(), old, node),
        seenIn('nodes', node)
      );
    }
    const facts = resumed.nodeFactsOf(node);
    if (JSON.stringify(old) !== JSON.stringify(facts)) {
      this.nodeIndex.set(name, facts);
    }
  }

  async #onDaemonSet(type: WatchEventType, ds: DaemonSet): Promise<void> {
    const old = this.#view.get(ds);
    if (type === 'DELETED') {
      this.#view.remove(ds);
      return this.#apply(handlers.deleteDaemonset(this.#view.view(), ds));
    }
    this.#view.put(ds);
    const view = this.#view.view();
    await this.#apply(
      old
        ? handlers.updateDaemonset(view, old, ds)
        : handlers.addDaemonset(view, ds)
    );
  }

  /**
   * Writes the work of every pod event handled so far (expectations, then
   * keys). A failed write throws; the next call first finishes that batch,
   * then writes what came since: each write lands once.
   */
  async flushPods(): Promise<void> {
    for (;;) {
      const leftover = this.#writing !== undefined;
      if (!leftover) {
        this.#writing = this.#podWork;
        this.#podWork = new PendingEventKeys();
      }
      await (this.#writing as PendingEventKeys).apply(this.#d);
      this.#writing = undefined;
      if (!leftover) return;
    }
  }

  async #onPod(type: WatchEventType, pod: Pod): Promise<void> {
    const view = this.#view.view();
    const uid = pod.metadata?.uid ?? '';
    const last = this.#pods.get(uid);
    const seen = seenIn('pods', pod);
    if (
      seen &&
      type !== 'DELETED' &&
      handlers.ownerOutsideSelector(view, pod)
    ) {
      seen.releasePod = pod.metadata?.name ?? '';
    }
    // Written by flushPods, which the pod watch calls before it counts
    // these events as processed.
    if (type === 'DELETED') {
      this.#pods.forget(uid);
      return this.#podWork.merge(handlers.deletePod(view, pod), seen);
    }
    this.#pods.remember(view, pod);
    if (type === 'ADDED') {
      return this.#podWork.merge(handlers.addPod(view, pod), seen);
    }
    const now = this.#d.clock.now();
    this.#podWork.merge(resumed.updatePodResumed(view, pod, last, now), seen);
  }

  async #onRevision(
    type: WatchEventType,
    rev: ControllerRevision
  ): Promise<void> {
    const view = this.#view.view();
    if (type === 'ADDED') return this.#apply(handlers.addHistory(view, rev));
    if (type === 'DELETED') {
      return this.#apply(handlers.deleteHistory(view, rev));
    }
    return this.#apply(resumed.updateHistoryResumed(view, rev));
  }

  /**
   * Starts pod events from now, with nothing to replay (a 410, or no stored
   * version: a first run, or a cluster whose runs never checkpointed): the
   * creates and deletes made meanwhile will never be observed, so every
   * expectation is dropped — upstream's relist delivers each pod to its add
   * handler, which lowers them — and every DaemonSet is queued to read pods
   * at least as fresh as the resume point. Returns that point.
   */
  async resumePodsWithoutHistory(): Promise<string> {
    // What was remembered of pods is stale now (deletes were missed).
    this.#pods.clear();
    // The point first: a sync sets its expectations before it creates, so a
    // create before the point had them set before the drop below; one set
    // after the drop creates after the point, and the watch delivers it.
    const resourceVersion = await this.currentVersion('pods');
    for (const key of this.#view.keys()) {
      await this.#d.expectations.deleteExpectations(key);
    }
    // Every sync now must read pods at least as fresh as the resume point.
    await this.enqueueAll(false, { collection: 'pods', resourceVersion });
    return resourceVersion;
  }
}

/** The version of the event that changed `obj`, as a sync must see it. */
const seenIn = (
  collection: SeenCollection,
  obj: KubeObject
): SeenVersion | undefined => {
  const resourceVersion = obj.metadata?.resourceVersion;
  return resourceVersion === undefined
    ? undefined
    : { collection, resourceVersion };
};
