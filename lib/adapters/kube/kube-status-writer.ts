/** DaemonSetStatusWriter over the API server's status subresource. */
import type { DaemonSetStatusWriter } from '../../ports/index.js';
import { kindOf } from '../../reconcile/k8s/daemon-set-kind.js';
import type { DaemonSet } from '../../reconcile/k8s/types.js';
import type { KubeHttp } from './client/kube-http.js';
import { paths } from './paths.js';

/** PUTs DaemonSet status (optimistic concurrency by resourceVersion). */
export class KubeStatusWriter implements DaemonSetStatusWriter {
  readonly #http: KubeHttp;

  constructor({ http }: { http: KubeHttp }) {
    this.#http = http;
  }

  updateStatus(ds: DaemonSet) {
    const ns = ds.metadata?.namespace ?? '';
    const name = ds.metadata?.name ?? '';
    const kind = kindOf(ds);
    return this.#http.request<DaemonSet>(
      `update status of ${kind.resource} ${ns}/${name}`,
      'PUT',
      paths.daemonSetStatus(kind, ns, name),
      {
        body: JSON.stringify({
          ...ds,
          apiVersion: kind.apiVersion,
          kind: kind.kind,
        }),
      }
    );
  }
}
