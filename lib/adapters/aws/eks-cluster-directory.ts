/**
 * Where an EKS cluster's API server is, and which CA it presents, asked of
 * EKS itself (`eks:DescribeCluster`) rather than taken from the registry:
 * anyone who can write the table could otherwise point a record at their
 * own server and receive a valid token for the real cluster. Answers are
 * kept for an hour per cluster (an endpoint or CA changes on a cluster
 * rebuild, which a re-registration follows anyway).
 */
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import type { STSClient } from '@aws-sdk/client-sts';
import type { Clock, ClusterAuth } from '../../ports/index.js';
import { assumeRoleCredentials } from './assume-role-credentials.js';
import { AwsCallError } from './aws-call-error.js';

type EksAuth = Extract<ClusterAuth, { type: 'eks' }>;

/** An EKS cluster's endpoint and CA (base64 PEM), as EKS reports them. */
export interface EksClusterTarget {
  endpoint: string;
  caData: string;
}

/** How long a DescribeCluster answer is reused. */
const TARGET_TTL_MS = 60 * 60_000;

/** Asks EKS where each registered EKS cluster is. */
export class EksClusterDirectory {
  readonly #o: { sts: STSClient; clock: Clock };
  readonly #cache = new Map<
    string,
    { target: Promise<EksClusterTarget>; atMs: number }
  >();

  constructor(o: { sts: STSClient; clock: Clock }) {
    this.#o = o;
  }

  /**
   * Returns the cluster's endpoint and CA (`fresh`: asked now, not from the
   * hour's cache); with `auth.roleArn`, asked as that role (the cluster may
   * live in another account).
   *
   * @throws AwsCallError when EKS cannot be asked or knows no such cluster.
   */
  describe(
    auth: EksAuth,
    clusterId: string,
    fresh = false
  ): Promise<EksClusterTarget> {
    const now = this.#o.clock.now();
    const cached = this.#cache.get(clusterId);
    if (!fresh && cached !== undefined && now - cached.atMs < TARGET_TTL_MS) {
      return cached.target;
    }
    const target = this.#ask(auth, clusterId);
    this.#cache.set(clusterId, { target, atMs: now });
    // A failed answer is not kept (unless a newer one replaced it).
    target.catch(() => {
      if (this.#cache.get(clusterId)?.target === target) {
        this.#cache.delete(clusterId);
      }
    });
    return target;
  }

  async #ask(auth: EksAuth, clusterId: string): Promise<EksClusterTarget> {
    const client = new EKSClient({
      region: auth.region,
      ...(auth.roleArn
        ? {
            credentials: assumeRoleCredentials({
              client: this.#o.sts,
              roleArn: auth.roleArn,
              cluster: clusterId,
              clock: this.#o.clock,
            }),
          }
        : {}),
    });
    try {
      const { cluster } = await client.send(
        new DescribeClusterCommand({ name: auth.clusterName })
      );
      const endpoint = cluster?.endpoint ?? '';
      const caData = cluster?.certificateAuthority?.data ?? '';
      if (endpoint === '' || caData === '') {
        throw new Error(
          'EKS reported no endpoint or CA (is it still creating?)'
        );
      }
      return { endpoint, caData };
    } catch (e) {
      throw new AwsCallError(
        'EKS',
        `describe cluster ${auth.clusterName} in ${auth.region}`,
        { cause: e }
      );
    } finally {
      client.destroy();
    }
  }
}
