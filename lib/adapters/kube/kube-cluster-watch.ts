/**
 * ClusterWatch over the API server: paginated cluster-wide lists, a
 * one-item list for the current resourceVersion, and watch streams with
 * bookmarks (pods and nodes in protobuf, decoded by their schemas).
 */
import type {
  ClusterWatch,
  ListSnapshot,
  WatchEvent,
  WatchedResource,
} from '../../ports/index.js';
import type { DaemonSetKind } from '../../reconcile/k8s/daemon-set-kind.js';
import type { KubeObject } from '../../reconcile/k8s/types.js';
import type { KubeHttp } from './client/kube-http.js';
import {
  type MessageSchema,
  projectMessage,
} from './client/protobuf/message-schema.js';
import { NODE } from './client/protobuf/node-schema.js';
import { POD } from './client/protobuf/pod-schema.js';
import { collectionPaths } from './paths.js';

/**
 * Collections watched in protobuf, in about half the bytes: what the bridge
 * reads of a pod (owner, labels, readiness, deletion, node) is a part of
 * what a sync reads, and of a node the same name, labels and taints.
 * DaemonSets and revisions stay JSON (the own kind is a custom resource,
 * which has no protobuf; revisions' data is read as the server sent it).
 */
const PROTOBUF_SCHEMAS: Partial<Record<WatchedResource, MessageSchema>> = {
  pods: POD,
  nodes: NODE,
};

/** Lists and watches the bridge's collections through `http`. */
export class KubeClusterWatch implements ClusterWatch {
  readonly #http: KubeHttp;
  readonly #paths: ReturnType<typeof collectionPaths>;

  constructor({ http, kind }: { http: KubeHttp; kind: DaemonSetKind }) {
    this.#http = http;
    this.#paths = collectionPaths(kind);
  }

  /** Lists `resource`; pods and nodes keep what their watch events carry. */
  list<T extends KubeObject>(
    resource: WatchedResource
  ): Promise<ListSnapshot<T>> {
    const schema = PROTOBUF_SCHEMAS[resource];
    return this.#http.listWithVersion<T>(
      `list ${resource}`,
      this.#paths[resource],
      {},
      undefined,
      schema &&
        ((obj) => projectMessage(schema, obj as Record<string, unknown>) as T)
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
      PROTOBUF_SCHEMAS[resource]
    );
  }
}
