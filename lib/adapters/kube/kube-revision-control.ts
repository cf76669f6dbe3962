/**
 * RevisionControl over the API server. Revision
 * bodies embed `data` as Go-canonical JSON, so the bytes the API server
 * stores equal upstream's `getPatch` output (kubectl's "skipped rollback"
 * check and upstream's `Match` compare bytes).
 */
import type { Patch, RevisionControl } from '../../ports/index.js';
import { marshalGoJson } from '../../reconcile/k8s/go-json.js';
import type { ControllerRevision } from '../../reconcile/k8s/types.js';
import type { KubeHttp } from './client/kube-http.js';
import { patchContentType } from './kube-pod-control.js';
import { paths } from './paths.js';

/** Returns the revision as JSON text with its data in canonical bytes. */
export const revisionBody = (revision: ControllerRevision): string => {
  const { data, ...rest } = revision;
  const head = JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    ...rest,
  });
  return data === undefined
    ? head
    : `${head.slice(0, -1)},"data":${marshalGoJson(data)}}`;
};

/** Writes ControllerRevisions. */
export class KubeRevisionControl implements RevisionControl {
  readonly #http: KubeHttp;

  constructor({ http }: { http: KubeHttp }) {
    this.#http = http;
  }

  createRevision(namespace: string, revision: ControllerRevision) {
    return this.#http.request<ControllerRevision>(
      `create controllerrevision ${namespace}/${revision.metadata?.name}`,
      'POST',
      paths.revisions(namespace),
      { body: revisionBody(revision) }
    );
  }

  updateRevision(namespace: string, revision: ControllerRevision) {
    const name = revision.metadata?.name ?? '';
    return this.#http.request<ControllerRevision>(
      `update controllerrevision ${namespace}/${name}`,
      'PUT',
      paths.revision(namespace, name),
      { body: revisionBody(revision) }
    );
  }

  async patchRevision(namespace: string, name: string, patch: Patch) {
    await this.#http.request(
      `patch controllerrevision ${namespace}/${name}`,
      'PATCH',
      paths.revision(namespace, name),
      { body: patch.body, contentType: patchContentType(patch) }
    );
  }

  async deleteRevision(namespace: string, name: string) {
    await this.#http.request(
      `delete controllerrevision ${namespace}/${name}`,
      'DELETE',
      paths.revision(namespace, name)
    );
  }
}
