/**
 * A PodControl decorator for runs without a watch: when every read is a
 * quorum read, a successful create or delete is visible to the next sync, so
 * the write itself is the observation upstream's informer would deliver
 * (creation observed on add; deletion observed once deletionTimestamp is set,
 * which a successful DELETE does).
 */
import type {
  ExpectationsStore,
  Patch,
  PodControl,
} from '../../lib/ports/index.js';
import type { DaemonSet, Pod } from '../../lib/reconcile/k8s/types.js';

/** Lowers expectations after each successful write of the inner PodControl. */
export class SelfObservingPodControl implements PodControl {
  readonly #inner: PodControl;
  readonly #expectations: ExpectationsStore;
  readonly #keyOf: (owner: DaemonSet) => string;

  constructor({
    inner,
    expectations,
    keyOf,
  }: {
    inner: PodControl;
    expectations: ExpectationsStore;
    keyOf: (owner: DaemonSet) => string;
  }) {
    this.#inner = inner;
    this.#expectations = expectations;
    this.#keyOf = keyOf;
  }

  async createPod(namespace: string, pod: Pod, owner: DaemonSet) {
    const resourceVersion = await this.#inner.createPod(namespace, pod, owner);
    await this.#expectations.creationObserved(this.#keyOf(owner));
    return resourceVersion;
  }

  async deletePod(namespace: string, name: string, owner: DaemonSet) {
    await this.#inner.deletePod(namespace, name, owner);
    await this.#expectations.deletionObserved(this.#keyOf(owner));
  }

  patchPod(namespace: string, name: string, patch: Patch) {
    return this.#inner.patchPod(namespace, name, patch);
  }
  patchPodStatus(namespace: string, name: string, patch: Patch) {
    return this.#inner.patchPodStatus(namespace, name, patch);
  }
}
