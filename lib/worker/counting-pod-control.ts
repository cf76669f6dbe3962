/** A PodControl decorator that counts one sync's pod writes (for metrics). */
import type { Patch, PodControl } from '../ports/index.js';
import type { DaemonSet, Pod } from '../reconcile/k8s/types.js';

/** Counts the pod writes of one sync. */
export class CountingPodControl implements PodControl {
  creates = 0;
  deletes = 0;
  constructor(readonly inner: PodControl) {}
  async createPod(namespace: string, pod: Pod, owner: DaemonSet) {
    const resourceVersion = await this.inner.createPod(namespace, pod, owner);
    this.creates++;
    return resourceVersion;
  }
  async deletePod(namespace: string, name: string, owner: DaemonSet) {
    await this.inner.deletePod(namespace, name, owner);
    this.deletes++;
  }
  patchPod(namespace: string, name: string, patch: Patch) {
    return this.inner.patchPod(namespace, name, patch);
  }
  patchPodStatus(namespace: string, name: string, patch: Patch) {
    return this.inner.patchPodStatus(namespace, name, patch);
  }
}
