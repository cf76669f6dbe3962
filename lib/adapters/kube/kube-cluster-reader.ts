/**
 * ClusterReader over the API server. Every read is a quorum read (no
 * `resourceVersion`), so a sync never acts on data older than its own
 * previous writes; lists are paginated (500 per page). Cheaper reads (watch
 * cache, a warm container's cache) are layered on top by the runtime.
 */
import { ApiErrorReason, isApiError } from '../../errors.js';
import type { ClusterReader } from '../../ports/index.js';
import type { DaemonSetKind } from '../../reconcile/k8s/daemon-set-kind.js';
import type {
  ControllerRevision,
  DaemonSet,
  Node,
  Pod,
} from '../../reconcile/k8s/types.js';
import type { KubeHttp } from './client/kube-http.js';
import { labelSelectorQuery } from './client/label-selector-query.js';
import { paths } from './paths.js';

const orUndefined = async <T>(read: Promise<T>): Promise<T | undefined> => {
  try {
    return await read;
  } catch (e) {
    if (isApiError(e, ApiErrorReason.NotFound)) return undefined;
    throw e;
  }
};

/** Reads DaemonSets, nodes, pods and revisions of one cluster. */
export class KubeClusterReader implements ClusterReader {
  readonly #http: KubeHttp;
  readonly #kind: DaemonSetKind;

  constructor({ http, kind }: { http: KubeHttp; kind: DaemonSetKind }) {
    this.#http = http;
    this.#kind = kind;
  }

  async getDaemonSet(namespace: string, name: string) {
    const ds = await orUndefined(
      this.#http.request<DaemonSet>(
        `get ${this.#kind.resource} ${namespace}/${name}`,
        'GET',
        paths.daemonSet(this.#kind, namespace, name)
      )
    );
    // The kind decides owner references and status fields downstream.
    return (
      ds && { ...ds, apiVersion: this.#kind.apiVersion, kind: this.#kind.kind }
    );
  }

  getDaemonSetFresh(namespace: string, name: string) {
    return this.getDaemonSet(namespace, name);
  }

  listNodes() {
    return this.#http.list<Node>('list nodes', paths.nodes());
  }

  /**
   * Lists the pods of the namespace that the owner's selector matches (all
   * of them when the selector cannot be expressed as a query). An owned pod
   * relabelled out of the selector is not seen, so it is not released as
   * upstream would; it is neither counted nor deleted either.
   */
  listPods(namespace: string, owner: DaemonSet) {
    return this.#http.list<Pod>(
      `list pods in ${namespace}`,
      paths.pods(namespace),
      {
        labelSelector: labelSelectorQuery(owner.spec?.selector),
      }
    );
  }

  /**
   * Reads one pod by a list with a field selector: upstream's
   * daemon-set-controller role may list pods but not get them.
   */
  async getPod(namespace: string, name: string) {
    const [pod] = await this.#http.list<Pod>(
      `list pod ${namespace}/${name}`,
      paths.pods(namespace),
      { fieldSelector: `metadata.name=${name}` }
    );
    return pod;
  }

  listControllerRevisions(namespace: string) {
    return this.#http.list<ControllerRevision>(
      `list controllerrevisions in ${namespace}`,
      paths.revisions(namespace)
    );
  }

  getControllerRevisionFresh(namespace: string, name: string) {
    return orUndefined(
      this.#http.request<ControllerRevision>(
        `get controllerrevision ${namespace}/${name}`,
        'GET',
        paths.revision(namespace, name)
      )
    );
  }
}
