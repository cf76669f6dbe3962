/**
 * AdvancedDaemonSets over the API server, for the kubectl plugin: the own
 * kind's objects, the ControllerRevisions and pods they control, and a
 * client opened from a kubeconfig file and context as kubectl opens one.
 */
import { ApiErrorReason, isApiError } from '../../errors.js';
import type {
  AdvancedDaemonSets,
  ClusterReader,
  DaemonSetMigrationApi,
  MemberTemplates,
  WatchFrom,
  WriteOptions,
} from '../../ports/index.js';
import { releasePatch } from '../../reconcile/k8s/controller-ref.js';
import {
  ADVANCED_DAEMON_SET,
  type DaemonSetKind,
} from '../../reconcile/k8s/daemon-set-kind.js';
import type {
  ControllerRevision,
  DaemonSet,
  KubeObject,
  LabelSelector,
  Pod,
  PodTemplateSpec,
} from '../../reconcile/k8s/types.js';
import { KubeHttp } from './client/kube-http.js';
import { labelSelectorQuery } from './client/label-selector-query.js';
import { KubeClusterReader } from './kube-cluster-reader.js';
import { type KubectlTarget, loadKubectlConfig } from './kubectl-kubeconfig.js';
import { paths } from './paths.js';

const kind = ADVANCED_DAEMON_SET;

/** The query of a write: `dryRun=All` when asked for (kubectl --dry-run=server). */
const writeQuery = (o: WriteOptions | undefined) =>
  o?.dryRun ? { query: { dryRun: 'All' } } : {};

const controlledByDaemonSet = (ds: DaemonSet) => (o: KubeObject) =>
  (o.metadata?.ownerReferences ?? []).some(
    (r) => r.controller === true && r.uid === ds.metadata?.uid
  );

/** The plugin's API access through one KubeHttp. */
export class KubeAdvancedDaemonSets
  implements AdvancedDaemonSets, DaemonSetMigrationApi, MemberTemplates
{
  readonly #http: KubeHttp;

  constructor({ http }: { http: KubeHttp }) {
    this.#http = http;
  }

  get(namespace: string, name: string) {
    return this.#http.request<DaemonSet>(
      `get ${kind.resource} ${namespace}/${name}`,
      'GET',
      paths.daemonSet(kind, namespace, name)
    );
  }

  list(namespace: string | undefined, selector?: string) {
    return this.#http.list<DaemonSet>(
      `list ${kind.resource}`,
      paths.daemonSets(kind, namespace),
      selector ? { labelSelector: selector } : {}
    );
  }

  listWithVersion(namespace: string | undefined, selector?: string) {
    return this.#http.listWithVersion<DaemonSet>(
      `list ${kind.resource}`,
      paths.daemonSets(kind, namespace),
      selector ? { labelSelector: selector } : {}
    );
  }

  watch(namespace: string | undefined, from: WatchFrom) {
    return this.#http.watch<DaemonSet>(
      `watch ${kind.resource}`,
      paths.daemonSets(kind, namespace),
      {
        resourceVersion: from.resourceVersion,
        allowWatchBookmarks: false,
        ...(from.selector ? { labelSelector: from.selector } : {}),
        ...(from.name ? { fieldSelector: `metadata.name=${from.name}` } : {}),
      },
      from.signal
    );
  }

  jsonPatch(
    namespace: string,
    name: string,
    ops: readonly object[],
    o?: WriteOptions
  ) {
    return this.#jsonPatchOf(kind, namespace, name, ops, o);
  }

  #jsonPatchOf(
    k: DaemonSetKind,
    namespace: string,
    name: string,
    ops: readonly object[],
    o?: WriteOptions
  ) {
    return this.#http.request<DaemonSet>(
      `patch ${k.resource}.${k.group} ${namespace}/${name}`,
      'PATCH',
      paths.daemonSet(k, namespace, name),
      {
        body: JSON.stringify(ops),
        contentType: 'application/json-patch+json',
        ...writeQuery(o),
      }
    );
  }

  replaceTemplateAt(
    k: DaemonSetKind,
    namespace: string,
    name: string,
    template: PodTemplateSpec,
    resourceVersion: string,
    o?: WriteOptions
  ) {
    return this.#jsonPatchOf(
      k,
      namespace,
      name,
      [
        // A failed test answers 422 Invalid: the object changed since read.
        {
          op: 'test',
          path: '/metadata/resourceVersion',
          value: resourceVersion,
        },
        { op: 'replace', path: '/spec/template', value: template },
      ],
      o
    );
  }

  patch(namespace: string, name: string, patch: object, o?: WriteOptions) {
    return this.patchDaemonSet(kind, namespace, name, patch, o);
  }

  replaceTemplate(
    namespace: string,
    name: string,
    template: unknown,
    o?: WriteOptions
  ) {
    return this.jsonPatch(
      namespace,
      name,
      [{ op: 'replace', path: '/spec/template', value: template }],
      o
    );
  }

  patchDaemonSet(
    k: DaemonSetKind,
    namespace: string,
    name: string,
    patch: object,
    o?: WriteOptions
  ) {
    return this.#http.request<DaemonSet>(
      `patch ${k.resource}.${k.group} ${namespace}/${name}`,
      'PATCH',
      paths.daemonSet(k, namespace, name),
      {
        body: JSON.stringify(patch),
        contentType: 'application/merge-patch+json',
        ...writeQuery(o),
      }
    );
  }

  /** Lists `what` the DaemonSet's selector matches and it controls. */
  async #controlled<T extends KubeObject>(
    ds: DaemonSet,
    what: 'pods' | 'revisions'
  ): Promise<T[]> {
    const ns = ds.metadata?.namespace ?? '';
    const items = await this.#http.list<T>(
      `list ${what} of ${ns}/${ds.metadata?.name}`,
      paths[what](ns),
      { labelSelector: labelSelectorQuery(ds.spec?.selector) }
    );
    return items.filter(controlledByDaemonSet(ds));
  }

  revisions(ds: DaemonSet) {
    return this.#controlled<ControllerRevision>(ds, 'revisions');
  }

  pods(ds: DaemonSet) {
    return this.#controlled<Pod>(ds, 'pods');
  }

  /**
   * Returns whether discovery lists the kind's resource: a 404 on an object
   * path means "no such object" only where the type is served (an absent
   * CRD answers 404 too).
   */
  async serves(k: DaemonSetKind) {
    try {
      const list = await this.#http.request<{
        resources?: { name?: string }[];
      }>(`discover ${k.group}/${k.version}`, 'GET', paths.groupVersion(k));
      return (list.resources ?? []).some((r) => r.name === k.resource);
    } catch (e) {
      if (isApiError(e, ApiErrorReason.NotFound)) return false;
      throw e;
    }
  }

  async find(k: DaemonSetKind, namespace: string, name: string) {
    try {
      return await this.#http.request<DaemonSet>(
        `get ${k.resource}.${k.group} ${namespace}/${name}`,
        'GET',
        paths.daemonSet(k, namespace, name)
      );
    } catch (e) {
      if (isApiError(e, ApiErrorReason.NotFound) && (await this.serves(k))) {
        return undefined;
      }
      throw e;
    }
  }

  create(
    k: DaemonSetKind,
    namespace: string,
    obj: DaemonSet,
    o?: WriteOptions
  ) {
    return this.#http.request<DaemonSet>(
      `create ${k.resource}.${k.group} ${namespace}/${obj.metadata?.name}`,
      'POST',
      paths.daemonSets(k, namespace),
      { body: JSON.stringify(obj), ...writeQuery(o) }
    );
  }

  async deleteOrphaning(
    k: DaemonSetKind,
    namespace: string,
    name: string,
    uid: string,
    o?: WriteOptions
  ) {
    await this.#http.request(
      `delete ${k.resource}.${k.group} ${namespace}/${name}`,
      'DELETE',
      paths.daemonSet(k, namespace, name),
      {
        // A DELETE with a body reads its options from the body alone: the
        // dry run goes there, not in the query.
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          propagationPolicy: 'Orphan',
          preconditions: { uid },
          ...(o?.dryRun ? { dryRun: ['All'] } : {}),
        }),
      }
    );
  }

  async release(
    what: 'pod' | 'revision',
    namespace: string,
    obj: Pod | ControllerRevision,
    owner: DaemonSet,
    o?: WriteOptions
  ) {
    const name = obj.metadata?.name ?? '';
    await this.#http.request(
      `release ${what} ${namespace}/${name}`,
      'PATCH',
      what === 'pod'
        ? paths.pod(namespace, name)
        : paths.revision(namespace, name),
      {
        body: releasePatch(owner, obj.metadata?.uid ?? ''),
        contentType: 'application/strategic-merge-patch+json',
        ...writeQuery(o),
      }
    );
  }

  async dependents(namespace: string, selector: LabelSelector | undefined) {
    const query = { labelSelector: labelSelectorQuery(selector) };
    const [pods, revisions] = await Promise.all([
      this.#http.list<Pod>('list pods', paths.pods(namespace), query),
      this.#http.list<ControllerRevision>(
        'list revisions',
        paths.revisions(namespace),
        query
      ),
    ]);
    return { pods, revisions };
  }

  /** Returns a live (uncached) reader of the DaemonSets of `kind`. */
  reader(kind: DaemonSetKind): ClusterReader {
    return new KubeClusterReader({ http: this.#http, kind });
  }

  close(): void {
    this.#http.close();
  }
}

/** Returns the plugin's API access and the context's namespace (kubectl's loading). */
export const openAdvancedDaemonSets = (
  target: KubectlTarget
): { api: KubeAdvancedDaemonSets; namespace: string; server?: string } => {
  const kc = loadKubectlConfig(target);
  const namespace = kc.getContextObject(kc.getCurrentContext())?.namespace;
  const server = kc.getCurrentCluster()?.server;
  return {
    api: new KubeAdvancedDaemonSets({ http: new KubeHttp({ kubeConfig: kc }) }),
    namespace: namespace ?? 'default',
    ...(server === undefined ? {} : { server }),
  };
};
