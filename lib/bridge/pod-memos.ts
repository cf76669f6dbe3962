/**
 * What one bridge run remembers of pods: each pod's controller and
 * readiness at its last event, so a controller change wakes the old owner
 * and a Ready pod's updates arm no minReadySeconds timer. ~100 bytes a pod,
 * kept only of pods a DaemonSet owns or may adopt (`shouldRememberPod`):
 * memory grows with the DaemonSets' pods, not with every pod of the cluster.
 */
import type { ClusterView } from '../reconcile/event-keys/common.js';
import {
  type PodMemo,
  podMemoOf,
  shouldRememberPod,
} from '../reconcile/event-keys/resumed.js';
import type { Pod } from '../reconcile/k8s/types.js';

/** The memos of one run's pods, by UID. */
export class PodMemos {
  readonly #byUid = new Map<string, PodMemo>();

  /** Returns the memo of the pod with `uid`, if kept. */
  get(uid: string): PodMemo | undefined {
    return this.#byUid.get(uid);
  }

  /** Records `pod` as it is now, or drops its memo when none is worth it. */
  remember(view: ClusterView, pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    if (shouldRememberPod(view, pod)) this.#byUid.set(uid, podMemoOf(pod));
    else this.#byUid.delete(uid);
  }

  /** Drops the memo of the pod with `uid`. */
  forget(uid: string): void {
    this.#byUid.delete(uid);
  }

  /** Drops every memo (deletes were missed). */
  clear(): void {
    this.#byUid.clear();
  }

  /** How many pods are remembered. */
  get size(): number {
    return this.#byUid.size;
  }
}
