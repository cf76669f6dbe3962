/**
 * only-controller-pods: every live pod in the run's namespace is either one
 * the runner marked foreign or is controlled (ownerReference with
 * controller=true) by a DaemonSet of the namespace. A pod controlled by
 * something else, or by nothing, was made or orphaned by someone it should
 * not have been (upstream only ever creates pods with its controller
 * reference, and releases a pod only when its labels stop matching).
 *
 * A pod is judged only CREATION_GRACE_MS after its creationTimestamp, so
 * the runner's markForeign, sent right after it creates one, can arrive.
 * A DaemonSet counts for DELETED_OWNER_GRACE_MS after the checker last saw
 * it: its deletion leaves its pods to the garbage collector. Each pod is
 * reported once.
 */
import { type ClusterView, isLive, targetNode } from './cluster-view.js';
import { isDaemonSetKind, type Pod } from './kube-objects.js';
import type { Violation } from './violation.js';

/** How long after its creation a pod may go unjudged (markForeign's way in). */
export const CREATION_GRACE_MS = 5_000;
/** How long a deleted DaemonSet's pods are left to the garbage collector. */
export const DELETED_OWNER_GRACE_MS = 30_000;

/** Remembers when each DaemonSet was last seen; reports stray pods. */
export class ControllerPodMonitor {
  /** DaemonSet uid → when the checker last saw it in the view. */
  readonly #lastSeen = new Map<string, number>();
  readonly #reported = new Set<string>();

  constructor(private readonly isForeign: (podName: string) => boolean) {}

  /**
   * Returns the pods that became stray at `atMs`; with `judge` false only
   * records which DaemonSets exist (while a watch is down the view may
   * lack a DaemonSet its pods name).
   */
  evaluate(view: ClusterView, atMs: number, judge: boolean): Violation[] {
    for (const ds of view.daemonSets.values()) {
      const seen = this.#lastSeen.get(ds.metadata.uid) ?? atMs;
      this.#lastSeen.set(ds.metadata.uid, Math.max(seen, atMs));
    }
    for (const [uid, seen] of this.#lastSeen) {
      if (atMs - seen > DELETED_OWNER_GRACE_MS) this.#lastSeen.delete(uid);
    }
    if (!judge) return [];
    const found: Violation[] = [];
    for (const pod of view.pods.values()) {
      const uid = pod.metadata.uid;
      if (!isLive(pod) || this.#reported.has(uid)) continue;
      if (this.isForeign(pod.metadata.name)) continue;
      const created = Date.parse(pod.metadata.creationTimestamp ?? '');
      if (Number.isNaN(created) || atMs - created < CREATION_GRACE_MS) {
        continue;
      }
      const problem = this.#problem(pod);
      if (problem === undefined) continue;
      this.#reported.add(uid);
      const node = targetNode(pod);
      found.push({
        invariant: 'only-controller-pods',
        atMs,
        pod: pod.metadata.name,
        ...(node ? { node } : {}),
        detail: `pod ${pod.metadata.name} (created ${pod.metadata.creationTimestamp}) is not marked foreign and ${problem}`,
      });
    }
    return found;
  }

  /** Returns what is wrong with the pod's controller, if anything. */
  #problem(pod: Pod): string | undefined {
    const ref = pod.metadata.ownerReferences?.find((r) => r.controller);
    if (!ref) return 'has no controller';
    const describe = `${ref.kind ?? '?'} ${ref.name ?? '?'} (uid ${ref.uid})`;
    if (!isDaemonSetKind(ref.kind)) return `is controlled by ${describe}`;
    if (this.#lastSeen.has(ref.uid)) return undefined;
    return `is controlled by ${describe}, which the namespace does not hold (nor did within ${DELETED_OWNER_GRACE_MS / 1000} s)`;
  }
}
