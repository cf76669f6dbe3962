/**
 * The read path the product avoids, for comparison: every read of a sync
 * goes to the API server (no SyncSnapshotReader), and pods are listed for
 * the whole namespace, as a port of upstream that swapped its informer cache
 * for live lists would do.
 */

import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { KubeClusterReader } from '#lib/adapters/kube/kube-cluster-reader.js';
import { paths } from '#lib/adapters/kube/paths.js';
import type { ClusterReader } from '#lib/ports/index.js';
import { NATIVE_DAEMON_SET } from '#lib/reconcile/k8s/daemon-set-kind.js';
import type { Pod } from '#lib/reconcile/k8s/types.js';

/** Returns a ClusterReader that lists live on every call, namespace-wide. */
export class NaiveClusterReader implements ClusterReader {
  readonly #http: KubeHttp;
  readonly #inner: KubeClusterReader;

  constructor({ http }: { http: KubeHttp }) {
    this.#http = http;
    this.#inner = new KubeClusterReader({ http, kind: NATIVE_DAEMON_SET });
  }

  getDaemonSet(namespace: string, name: string) {
    return this.#inner.getDaemonSet(namespace, name);
  }

  getDaemonSetFresh(namespace: string, name: string) {
    return this.#inner.getDaemonSetFresh(namespace, name);
  }

  listNodes() {
    return this.#inner.listNodes();
  }

  /** Lists every pod of the namespace, whatever the owner selects. */
  listPods(namespace: string) {
    return this.#http.list<Pod>(
      `list pods in ${namespace}`,
      paths.pods(namespace)
    );
  }

  listControllerRevisions(namespace: string) {
    return this.#inner.listControllerRevisions(namespace);
  }

  getPod(namespace: string, name: string) {
    return this.#inner.getPod(namespace, name);
  }

  getControllerRevisionFresh(namespace: string, name: string) {
    return this.#inner.getControllerRevisionFresh(namespace, name);
  }
}
