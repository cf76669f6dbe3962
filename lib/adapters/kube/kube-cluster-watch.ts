/**
 * ClusterWatch over the API server: paginated cluster-wide lists, a
 * one-item list for the current resourceVersion, and watch streams with
 * bookmarks (pods in protobuf, decoded to the fields of pod-schema.ts).
 */
import type {
  ClusterWatch,
  ListSnapshot,
  WatchEvent,
  WatchedResource,
} from '../../ports/index.js';
import type { DaemonSetKind } from '../../reconcile/k8s/daemon-set-kind.js';
import type { KubeObject } from '../../reconcile/k8s/types.js';
import type { KubeHttp } from './kube-http.js';
import { collectionPaths } from './paths.js';
import { POD } from './protobuf/pod-schema.js';

/** Lists and watches the bridge's collections through `http`. */
export class KubeClusterWatch implements ClusterWatch {
  readonly #http: KubeHttp;
  readonly #paths: ReturnType<typeof collectionPaths>;

  constructor({ http, kind }: { http: KubeHttp; kind: DaemonSetKind }) {
    this.#http = http;
    this.#paths = collectionPaths(kind);
  }

  list<T extends KubeObject>(
    resource: WatchedResource
  ): Promise<ListSnapshot<T>> {
    return this.#http.listWithVersion<T>(
      `list ${resource}`,
      this.#paths[resource]
    );
  }

  async currentVersion(resource: WatchedResource): Promise<string> {
    const page = await this.#http.request<{
      metadata?: { resourceVersion?: string };
    }>(`list ${resource}`, 'GET', this.#paths[resource], {
      query: { limit: 1 },
    });
    return page.metadata?.resourceVersion ?? '';
  }

  watch<T extends KubeObject>(
    resource: WatchedResource,
    resourceVersion: string,
    timeoutSeconds: number,
    signal: AbortSignal
  ): AsyncIterable<WatchEvent<T>> {
    return this.#http.watch<T>(
      `watch ${resource}`,
      this.#paths[resource],
      { resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
      signal,
      // Every pod of the cluster, in about half the bytes: what the bridge
      // reads of a pod (its owner, labels, readiness, deletion, node) is a
      // part of what a sync reads.
      resource === 'pods' ? POD : undefined
    );
  }
}
