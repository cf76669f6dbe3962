/**
 * partition-respected and pause-respected: what the product's rollout of
 * an opted-in OnDelete DaemonSet may delete (Kruise's
 * filterDaemonPodsNodeToUpdate: the working set is cut to the nodes minus
 * the partition, so the partition's nodes keep their old pod; a paused
 * rollout deletes nothing). The cluster's own controller deletes only
 * failed pods, surplus pods and pods on nodes that must not run them, never
 * an available old pod on an eligible node, so such a deletion is the
 * product's.
 *
 * Judged at each deletion the runner did not announce with markChaos of a
 * live old-revision pod on a node eligible throughout the slack before it:
 * - partition: the other nodes holding an old pod of the DaemonSet — now,
 *   or lost to chaos within the slack (the product's lagging view may
 *   still count them) — must number at least the smallest partition in
 *   force within the slack (a percentage scaled down against the nodes
 *   eligible throughout);
 * - pause: an available old pod, the only live pod on its node, must not
 *   go while every version of the DaemonSet within the slack was paused.
 * The current revision is the checker's newest; the product's may lag, and
 * then it counts fewer pods old, never more.
 */
import {
  type ClusterView,
  isAvailable,
  isLive,
  keyOf,
  targetNode,
} from './cluster-view.js';
import { currentRevision, revisionHash } from './current-revision.js';
import type { DaemonSet, Pod } from './kube-objects.js';
import { REVISION_HASH_LABEL } from './kube-objects.js';
import type { RunLabel } from './node-eligibility.js';
import { onDeleteControls } from './on-delete-controls.js';
import { RecentEligibility } from './recent-eligibility.js';
import { scaledValue } from './rolling-budget.js';
import type { Violation } from './violation.js';

/** Judges the OnDelete rollout's deletions against its partition and pause. */
export class OnDeleteRolloutMonitor {
  readonly #recent: RecentEligibility;
  /** DaemonSet uid → node → when chaos took its old pod. */
  readonly #chaosLost = new Map<string, Map<string, number>>();
  /** DaemonSet uids already reported, per invariant. */
  readonly #reported = new Set<string>();

  constructor(
    runLabel: RunLabel,
    private readonly isChaos: (podName: string) => boolean,
    private readonly slackMs: number
  ) {
    this.#recent = new RecentEligibility(runLabel, slackMs);
  }

  /** Records the DaemonSets' specs and node eligibility after an applied event. */
  observeView(view: ClusterView, atMs: number): void {
    this.#recent.observe(view, atMs);
  }

  /** Judges one pod change before the view applies it. */
  observePodChange(
    view: ClusterView,
    before: Pod | undefined,
    after: Pod | undefined,
    atMs: number
  ): Violation[] {
    if (!before || !isLive(before) || (after && isLive(after))) return [];
    const ds = view.ownerOf(before);
    const node = targetNode(before);
    if (!ds || !node || !onDeleteControls(ds)) return [];
    const hash = currentHash(view, ds);
    if (hash === undefined || !isOld(before, hash)) return [];
    const uid = ds.metadata.uid;
    if (this.isChaos(before.metadata.name)) {
      for (const lost of this.#chaosLost.values()) {
        for (const [n, at] of lost) {
          if (at < atMs - this.slackMs) lost.delete(n);
        }
      }
      const lost = this.#chaosLost.get(uid) ?? new Map<string, number>();
      lost.set(node, atMs);
      this.#chaosLost.set(uid, lost);
      return [];
    }
    const removed = !after || Boolean(after.metadata.deletionTimestamp);
    const fromMs = atMs - this.slackMs;
    if (!removed || this.#recent.wasIneligibleSince(uid, node, fromMs)) {
      return [];
    }
    const specs = this.#recent.specsSince(ds, fromMs);
    const controls = specs.map(onDeleteControls);
    const found: Violation[] = [];
    const desired = this.#recent.eligibleThroughout(uid, fromMs);
    const partition = Math.min(
      ...controls.map((c) =>
        c ? (scaledValue(c.partition, desired, false) ?? 0) : 0
      )
    );
    const others = this.#oldNodes(view, ds, hash, node, fromMs);
    if (others.length < partition) {
      found.push({
        invariant: 'partition-respected',
        atMs,
        daemonSet: keyOf(ds.metadata),
        node,
        pod: before.metadata.name,
        detail: `${keyOf(ds.metadata)}: deleting old pod ${before.metadata.name} on ${node} leaves ${others.length} other nodes on an old revision (${others.join(', ') || 'none'}), partition ${partition} of ${desired} nodes eligible throughout the last ${this.slackMs} ms`,
      });
    }
    const alone = view
      .daemonPods(ds)
      .filter(isLive)
      .every(
        (p) => p.metadata.uid === before.metadata.uid || targetNode(p) !== node
      );
    const minReady = ds.spec.minReadySeconds ?? 0;
    if (
      alone &&
      isAvailable(before, minReady, atMs) &&
      controls.every((c) => c?.paused === true)
    ) {
      found.push({
        invariant: 'pause-respected',
        atMs,
        daemonSet: keyOf(ds.metadata),
        node,
        pod: before.metadata.name,
        detail: `${keyOf(ds.metadata)}: available old pod ${before.metadata.name} on ${node} deleted while the rollout was paused throughout the last ${this.slackMs} ms`,
      });
    }
    return found.filter((v) => this.#firstOf(v, uid));
  }

  /** Nodes other than `node` with a live old pod, or one chaos took since `fromMs`. */
  #oldNodes(
    view: ClusterView,
    ds: DaemonSet,
    hash: string,
    node: string,
    fromMs: number
  ): string[] {
    const nodes = new Set<string>();
    for (const p of view.daemonPods(ds)) {
      const on = targetNode(p);
      if (on && on !== node && isLive(p) && isOld(p, hash)) nodes.add(on);
    }
    for (const [on, atMs] of this.#chaosLost.get(ds.metadata.uid) ?? []) {
      if (on !== node && atMs >= fromMs) nodes.add(on);
    }
    return [...nodes].sort();
  }

  #firstOf(v: Violation, uid: string): boolean {
    const key = `${v.invariant}/${uid}`;
    if (this.#reported.has(key)) return false;
    this.#reported.add(key);
    return true;
  }
}

const currentHash = (view: ClusterView, ds: DaemonSet): string | undefined => {
  const current = currentRevision(view, ds);
  return current ? revisionHash(current) : undefined;
};

const isOld = (pod: Pod, hash: string): boolean =>
  pod.metadata.labels?.[REVISION_HASH_LABEL] !== hash;
