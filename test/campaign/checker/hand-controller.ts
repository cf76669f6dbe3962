/**
 * Plays the DaemonSet controller by hand, for the checker's integration test
 * (test/integration/campaign-checker.test.ts): that test bed runs no
 * DaemonSet controller, so pods with a controller reference, revisions and
 * status are written directly. Takes any raw JSON client (the test passes
 * its KubeHttp) so the checker's directory stays free of lib/ imports.
 */
import type { DaemonSet, DaemonSetStatus } from './kube-objects.js';
import { REVISION_HASH_LABEL } from './kube-objects.js';

/** The raw JSON requests the hand controller needs. */
export interface RawKubeClient {
  request<T = unknown>(
    what: string,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    options?: { body?: string; contentType?: 'application/merge-patch+json' }
  ): Promise<T>;
}

const podsPath = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
const appsPath = (ns: string, resource: string) =>
  `/apis/apps/v1/namespaces/${ns}/${resource}`;

/** Returns the controller reference a DaemonSet puts on its pods. */
const controllerRef = (ds: DaemonSet) => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  name: ds.metadata.name,
  uid: ds.metadata.uid,
  controller: true,
});

/** Returns a DaemonSet as the API server serves it. */
export const getDaemonSet = (kube: RawKubeClient, ns: string, name: string) =>
  kube.request<DaemonSet>(
    'get ds',
    'GET',
    `${appsPath(ns, 'daemonsets')}/${name}`
  );

/**
 * Creates a pod bound to `nodeName` (KWOK makes it Ready): a daemon pod of
 * `owner` with revision `hash` when an owner is given, else a foreign pod
 * labelled app=visitor.
 */
export const createPod = async (
  kube: RawKubeClient,
  ns: string,
  name: string,
  nodeName: string,
  owner?: DaemonSet,
  hash = 'h1'
): Promise<void> => {
  const metadata = owner
    ? {
        name,
        labels: { app: owner.metadata.name, [REVISION_HASH_LABEL]: hash },
        ownerReferences: [controllerRef(owner)],
      }
    : { name, labels: { app: 'visitor' } };
  await kube.request(`create pod ${name}`, 'POST', podsPath(ns), {
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata,
      spec: { nodeName, containers: [{ name: 'c', image: 'agent:1' }] },
    }),
  });
};

/** Deletes a pod (default grace; KWOK finishes the deletion). */
export const deletePod = (kube: RawKubeClient, ns: string, name: string) =>
  kube.request(`delete pod ${name}`, 'DELETE', `${podsPath(ns)}/${name}`);

/** Adds labels to a pod. */
export const labelPod = (
  kube: RawKubeClient,
  ns: string,
  name: string,
  labels: Record<string, string>
) =>
  kube.request(`label pod ${name}`, 'PATCH', `${podsPath(ns)}/${name}`, {
    body: JSON.stringify({ metadata: { labels } }),
    contentType: 'application/merge-patch+json',
  });

/** Replaces the DaemonSet's update strategy (a merge patch replaces rollingUpdate whole). */
export const setUpdateStrategy = (
  kube: RawKubeClient,
  ds: DaemonSet,
  updateStrategy: NonNullable<DaemonSet['spec']['updateStrategy']>
) =>
  kube.request(
    'set update strategy',
    'PATCH',
    `${appsPath(ds.metadata.namespace ?? '', 'daemonsets')}/${ds.metadata.name}`,
    {
      body: JSON.stringify({ spec: { updateStrategy } }),
      contentType: 'application/merge-patch+json',
    }
  );

/** Creates the ControllerRevision of the DaemonSet's current template. */
export const createRevision = (
  kube: RawKubeClient,
  ds: DaemonSet,
  hash: string,
  revision = 1
) =>
  kube.request(
    'create revision',
    'POST',
    appsPath(ds.metadata.namespace ?? '', 'controllerrevisions'),
    {
      body: JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: {
          name: `${ds.metadata.name}-${hash}`,
          labels: { [REVISION_HASH_LABEL]: hash },
          ownerReferences: [controllerRef(ds)],
        },
        data: {
          spec: { template: { ...ds.spec.template, $patch: 'replace' } },
        },
        revision,
      }),
    }
  );

/** Writes the DaemonSet's status through the status subresource. */
export const writeStatus = (
  kube: RawKubeClient,
  ds: DaemonSet,
  status: DaemonSetStatus
) =>
  kube.request(
    'write status',
    'PATCH',
    `${appsPath(ds.metadata.namespace ?? '', 'daemonsets')}/${ds.metadata.name}/status`,
    {
      body: JSON.stringify({ status }),
      contentType: 'application/merge-patch+json',
    }
  );
