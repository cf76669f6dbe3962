/**
 * foreign-pods-untouched: pods the runner made that no DaemonSet owns or
 * selects keep their ownerReferences and labels and are not deleted, unless
 * the runner announced the change. Upstream's controller adopts orphans
 * whose labels match a selector (ClaimPods) and deletes only what it
 * controls; anything else touching a foreign pod is a bug.
 *
 * Each expectForeignChange allows one change; a deletion is one change
 * even though the watch shows it twice (deletionTimestamp, then DELETED).
 */
import { targetNode } from './cluster-view.js';
import type { Pod } from './kube-objects.js';
import type { Violation } from './violation.js';

/** The parts of a foreign pod that must not change. */
interface Guarded {
  ownerReferences: string;
  labels: string;
  deleting: boolean;
}

interface Watched {
  /** What the pod looked like when last accepted; undefined before seen. */
  baseline?: Guarded;
  allowances: number;
  /** An allowed deletion is under way: its DELETED event is expected. */
  deletionAllowed: boolean;
}

const guardedOf = (pod: Pod): Guarded => ({
  ownerReferences: JSON.stringify(pod.metadata.ownerReferences ?? []),
  labels: JSON.stringify(
    Object.entries(pod.metadata.labels ?? {}).sort(([a], [b]) =>
      a.localeCompare(b)
    )
  ),
  deleting: Boolean(pod.metadata.deletionTimestamp),
});

const describeChange = (from: Guarded, to: Guarded): string => {
  const changes: string[] = [];
  if (from.ownerReferences !== to.ownerReferences) {
    changes.push(
      `ownerReferences ${from.ownerReferences} → ${to.ownerReferences}`
    );
  }
  if (from.labels !== to.labels)
    changes.push(`labels ${from.labels} → ${to.labels}`);
  if (!from.deleting && to.deleting) changes.push('deletion started');
  return changes.join(', ');
};

/** Watches the foreign pods by name. */
export class ForeignPodMonitor {
  readonly #pods = new Map<string, Watched>();

  /** Starts guarding a pod, from its current state when known. */
  mark(podName: string, current: Pod | undefined): void {
    this.#pods.set(podName, {
      ...(current ? { baseline: guardedOf(current) } : {}),
      allowances: 0,
      deletionAllowed: false,
    });
  }

  /** Whether the runner marked the pod foreign. */
  isMarked(podName: string): boolean {
    return this.#pods.has(podName);
  }

  /** Allows the next change of the pod (the runner is about to make it). */
  expectChange(podName: string): void {
    const watched = this.#pods.get(podName);
    if (watched) watched.allowances++;
  }

  /** Returns a violation if the change of `podName` was not announced. */
  observe(
    podName: string,
    after: Pod | undefined,
    atMs: number
  ): Violation | undefined {
    const watched = this.#pods.get(podName);
    if (!watched?.baseline) {
      if (watched && after) watched.baseline = guardedOf(after);
      return undefined;
    }
    const before = watched.baseline;
    if (!after) {
      watched.baseline = undefined;
      if (watched.deletionAllowed || before.deleting) {
        watched.deletionAllowed = false;
        return undefined;
      }
      return this.#judge(watched, podName, undefined, atMs, 'pod deleted');
    }
    const now = guardedOf(after);
    const change = describeChange(before, now);
    watched.baseline = now;
    if (change === '') return undefined;
    if (now.deleting && !before.deleting && watched.allowances > 0) {
      watched.deletionAllowed = true;
    }
    return this.#judge(watched, podName, after, atMs, change);
  }

  #judge(
    watched: Watched,
    podName: string,
    pod: Pod | undefined,
    atMs: number,
    change: string
  ): Violation | undefined {
    if (watched.allowances > 0) {
      watched.allowances--;
      return undefined;
    }
    const node = pod ? targetNode(pod) : undefined;
    return {
      invariant: 'foreign-pods-untouched',
      atMs,
      pod: podName,
      ...(node ? { node } : {}),
      detail: `foreign pod ${podName} changed without expectForeignChange: ${change}`,
    };
  }
}
