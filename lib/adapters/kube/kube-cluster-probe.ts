/**
 * ClusterProbe over the API server: GET /version, a SelfSubjectReview and
 * SelfSubjectAccessReviews.
 */
import type { ClusterProbe, ResourceAttributes } from '../../ports/index.js';
import type { KubeHttp } from './kube-http.js';

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
  readonly #http: Pick<KubeHttp, 'request'>;

  constructor({ http }: { http: Pick<KubeHttp, 'request'> }) {
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
