/**
 * product-never-creates: in the native OnDelete mode the cluster's own
 * DaemonSet controller makes every pod and writes every DaemonSet; the
 * product only deletes pods and patches a pod's labels or its status
 * conditions (a preDelete hook, the KruisePodReady gate). Server-side
 * field management names the writer of each field, so a pod whose spec
 * fields belong to the product's field manager was created (or its spec
 * written) by the product, and a DaemonSet with any field of the product's
 * was written by it: each is a second controller.
 */
import type { ClusterView } from './cluster-view.js';
import type { ManagedFieldsEntry, ObjectMeta } from './kube-objects.js';
import type { Violation } from './violation.js';

/** Reports each object the product wrote where it must not, once. */
export class ProductWritesMonitor {
  readonly #reported = new Set<string>();

  constructor(private readonly manager: string) {}

  /** Returns the new breaches in the view. */
  evaluate(view: ClusterView, atMs: number): Violation[] {
    const found: Violation[] = [];
    for (const pod of view.pods.values()) {
      const entry = this.#entryOf(
        pod.metadata,
        (e) => !e.subresource && 'f:spec' in (e.fieldsV1 ?? {})
      );
      if (entry) {
        found.push(this.#breach(pod.metadata, 'pod', entry, atMs));
      }
    }
    for (const ds of view.daemonSets.values()) {
      // Its spec, metadata or status: the product writes none of them.
      const entry = this.#entryOf(ds.metadata, () => true);
      if (entry) {
        found.push(this.#breach(ds.metadata, 'DaemonSet', entry, atMs));
      }
    }
    return found;
  }

  #entryOf(
    meta: ObjectMeta,
    writes: (e: ManagedFieldsEntry) => boolean
  ): ManagedFieldsEntry | undefined {
    if (this.#reported.has(meta.uid)) return undefined;
    const entry = (meta.managedFields ?? []).find(
      (e) => e.manager === this.manager && writes(e)
    );
    if (entry) this.#reported.add(meta.uid);
    return entry;
  }

  #breach(
    meta: ObjectMeta,
    kind: 'pod' | 'DaemonSet',
    entry: ManagedFieldsEntry,
    atMs: number
  ): Violation {
    return {
      invariant: 'product-never-creates',
      atMs,
      ...(kind === 'pod' ? { pod: meta.name } : { daemonSet: meta.name }),
      detail: `${kind} ${meta.name}: ${kind === 'pod' ? 'its spec was written' : 'written'} by the product's field manager ${this.manager} (${entry.operation ?? 'write'}), where the cluster's DaemonSet controller makes every pod and owns every DaemonSet`,
    };
  }
}
