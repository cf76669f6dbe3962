/**
 * ClusterWatch over the API server: paginated cluster-wide lists, a
 * one-item list for the current resourceVersion, and watch streams with
 * bookmarks.
 */
import type {
  ClusterWatch,
  ListSnapshot,
  WatchEvent,
  WatchedResource,
} from '../../ports/index.js';
import type { KubeObject } from '../../reconcile/k8s/types.js';
import type { KubeHttp } from './kube-http.js';
import { collectionPaths } from './paths.js';

/** Lists and watches the bridge's collections through `http`. */
export class KubeClusterWatch implements ClusterWatch {
  readonly #http: KubeHttp;

  constructor({ http }: { http: KubeHttp }) {
    this.#http = http;
  }

  list<T extends KubeObject>(
    resource: WatchedResource
  ): Promise<ListSnapshot<T>> {
    return this.#http.listWithVersion<T>(
      `list ${resource}`,
      collectionPaths[resource]
    );
  }

  async currentVersion(resource: WatchedResource): Promise<string> {
    const page = await this.#http.request<{
      metadata?: { resourceVersion?: string };
    }>(`list ${resource}`, 'GET', collectionPaths[resource], {
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
      collectionPaths[resource],
      { resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
      signal
    );
  }
}
