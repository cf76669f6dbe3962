/**
 * Installs the own kind's CRD (infra/kubernetes/advanced-daemonset-crd.yaml)
 * on a local control plane, as a user would with kubectl apply, and waits
 * until the API server serves the kind. Serves `npm start --own-kind` and
 * the test bed.
 */
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import type { KubeHttp } from '../adapters/kube/client/kube-http.js';
import { KubeApiError } from '../errors.js';
import { waitFor } from './processes.js';
import { repositoryFile } from './repository-file.js';

/** The CRD as raw JSON (client-node's loadYaml would rename x-kubernetes-*). */
export const ADVANCED_DAEMON_SET_CRD = load(
  readFileSync(
    repositoryFile(
      import.meta.url,
      'infra/kubernetes/advanced-daemonset-crd.yaml'
    ),
    'utf8'
  )
) as { metadata: { name: string } };

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** Creates the CRD unless it exists; resolves once the kind is served. */
export const ensureAdvancedDaemonSetCrd = async (
  admin: KubeHttp
): Promise<void> => {
  await admin
    .request('create crd', 'POST', CRDS, {
      body: JSON.stringify(ADVANCED_DAEMON_SET_CRD),
    })
    .catch((e: unknown) => {
      if (!(e instanceof KubeApiError && e.statusCode === 409)) throw e;
    });
  await waitFor(
    'the AdvancedDaemonSet kind served',
    async () =>
      (await admin
        .request(
          'list ads',
          'GET',
          '/apis/apps.dsr.dev/v1beta1/advanceddaemonsets'
        )
        .then(() => true)
        .catch(() => undefined)) ?? undefined,
    60_000,
    200
  );
};
