/**
 * ClusterProbe over the API server: GET /version, a SelfSubjectReview and
 * SelfSubjectAccessReviews.
 */
import type { ClusterProbe, ResourceAttributes } from '../../ports/index.js';
import { NATIVE_DAEMON_SET } from '../../reconcile/k8s/daemon-set-kind.js';
import type { DaemonSet } from '../../reconcile/k8s/types.js';
import type { KubeHttp } from './client/kube-http.js';
import { paths } from './paths.js';

interface VersionInfo {
  gitVersion?: string;
}

interface SelfSubjectReview {
  status?: { userInfo?: { username?: string } };
}

interface AccessReview {
  status?: { allowed?: boolean };
}

/** Asks a cluster `clusters check`'s questions through `http`. */
export class KubeClusterProbe implements ClusterProbe {
  readonly #http: Pick<KubeHttp, 'request' | 'list'>;

  constructor({ http }: { http: Pick<KubeHttp, 'request' | 'list'> }) {
    this.#http = http;
  }

  async version(): Promise<string | undefined> {
    const info = await this.#http.request<VersionInfo | undefined>(
      'get version',
      'GET',
      '/version'
    );
    return info?.gitVersion;
  }

  async whoAmI(): Promise<string | undefined> {
    const review = await this.#http.request<SelfSubjectReview>(
      'review self',
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      {
        body: JSON.stringify({
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'SelfSubjectReview',
        }),
      }
    );
    return review.status?.userInfo?.username;
  }

  async daemonSetStatusManagers() {
    const list = await this.#http.request<{ items?: DaemonSet[] }>(
      'list daemonsets',
      'GET',
      // kube-system: where managed control planes run their own DaemonSets
      // (kube-proxy, aws-node, …), status written by their controller.
      paths.daemonSets(NATIVE_DAEMON_SET, 'kube-system'),
      { query: { limit: 100 } }
    );
    return (list.items ?? []).map((ds) => ({
      daemonSet: `${ds.metadata?.namespace}/${ds.metadata?.name}`,
      managers: (ds.metadata?.managedFields ?? [])
        .filter((f) => f.subresource === 'status')
        .map((f) => f.manager ?? ''),
    }));
  }

  async canI(attributes: ResourceAttributes): Promise<boolean> {
    const { verb, resource, subresource } = attributes;
    const review = await this.#http.request<AccessReview>(
      `review access to ${verb} ${resource}${subresource ? `/${subresource}` : ''}`,
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      {
        body: JSON.stringify({
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: attributes },
        }),
      }
    );
    return review.status?.allowed === true;
  }
}
