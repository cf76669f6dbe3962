/**
 * PodControl over the API server, with the events upstream's
 * `RealPodControl` records (pkg/controller/controller_utils.go).
 */
import {
  ApiErrorReason,
  hasNamespaceTerminatingCause,
  isApiError,
  ReconcilerError,
  toError,
} from '../../errors.js';
import type { EventRecorder, Patch, PodControl } from '../../ports/index.js';
import { EventReason } from '../../reconcile/events.js';
import type { DaemonSet, Pod } from '../../reconcile/k8s/types.js';
import type { KubeHttp } from './client/kube-http.js';
import { METADATA_ANSWER } from './client/protobuf/partial-object-metadata.js';
import { paths } from './paths.js';

export const patchContentType = (patch: Patch) =>
  patch.type === 'strategic'
    ? ('application/strategic-merge-patch+json' as const)
    : ('application/merge-patch+json' as const);

/** Creates, deletes and patches pods; records create/delete events. */
export class KubePodControl implements PodControl {
  readonly #http: KubeHttp;
  readonly #events: EventRecorder;

  constructor({ http, events }: { http: KubeHttp; events: EventRecorder }) {
    this.#http = http;
    this.#events = events;
  }

  async createPod(namespace: string, pod: Pod, owner: DaemonSet) {
    if (Object.keys(pod.metadata?.labels ?? {}).length === 0) {
      throw new ReconcilerError('unable to create pods, no labels');
    }
    try {
      // Only the created pod's name and resourceVersion are read.
      const created = await this.#http.requestMetadata(
        `create pod in ${namespace}`,
        'POST',
        paths.pods(namespace),
        { body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', ...pod }) }
      );
      await this.#events.record(
        owner,
        'Normal',
        EventReason.SuccessfulCreate,
        `Created pod: ${created.metadata?.name}`
      );
      return created.metadata?.resourceVersion;
    } catch (e) {
      if (!hasNamespaceTerminatingCause(e)) {
        await this.#events.record(
          owner,
          'Warning',
          EventReason.FailedCreate,
          `Error creating: ${toError(e).message}`
        );
      }
      throw e;
    }
  }

  async deletePod(namespace: string, name: string, owner: DaemonSet) {
    try {
      // The answer is asked small and never read: a delete that landed is
      // not undone by an answer that would not decode.
      await this.#http.requestText(
        `delete pod ${namespace}/${name}`,
        'DELETE',
        paths.pod(namespace, name),
        { accept: METADATA_ANSWER }
      );
    } catch (e) {
      if (!isApiError(e, ApiErrorReason.NotFound)) {
        await this.#events.record(
          owner,
          'Warning',
          EventReason.FailedDelete,
          `Error deleting: ${toError(e).message}`
        );
      }
      throw e;
    }
    await this.#events.record(
      owner,
      'Normal',
      EventReason.SuccessfulDelete,
      `Deleted pod: ${name}`
    );
  }

  async patchPod(namespace: string, name: string, patch: Patch) {
    await this.#http.request(
      `patch pod ${namespace}/${name}`,
      'PATCH',
      paths.pod(namespace, name),
      { body: patch.body, contentType: patchContentType(patch) }
    );
  }

  async patchPodStatus(namespace: string, name: string, patch: Patch) {
    await this.#http.request(
      `patch status of pod ${namespace}/${name}`,
      'PATCH',
      `${paths.pod(namespace, name)}/status`,
      { body: patch.body, contentType: patchContentType(patch) }
    );
  }
}
