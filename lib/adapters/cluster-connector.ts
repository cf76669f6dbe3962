/**
 * Opens a registered cluster's API with the credential its record names:
 * an EKS token minted from this function's IAM identity (one token cache per
 * cluster, re-minted before expiry), a credential kept in Secrets Manager
 * (read once per container), or — for local runs and tests only — a
 * kubeconfig file. TLS is always verified against the record's CA.
 */
import type { STSClient } from '@aws-sdk/client-sts';
import type { KubeConfig } from '@kubernetes/client-node';
import { ReconcilerError } from '../errors.js';
import { DEFAULT_API_BUDGET } from '../policy/request-budget.js';
import type { Clock, ClusterRecord, RequestBudget } from '../ports/index.js';
import { type EksTokenCache, eksTokenCacheFor } from './aws/eks-token.js';
import type { SecretCredentials } from './aws/secret-credentials.js';
import {
  kubeConfigForCluster,
  kubeConfigFromFile,
} from './kube/kube-config-for-cluster.js';
import { KubeHttp } from './kube/kube-http.js';

/** What a ClusterConnector is built from. */
export interface ClusterConnectorOptions {
  sts?: STSClient;
  secrets?: SecretCredentials;
  /** Paces every request to a cluster (shared per-cluster budget). */
  budget?: RequestBudget;
  clock: Clock;
}

/** Connects to clusters; keeps token caches across connections. */
export class ClusterConnector {
  readonly #tokens = new Map<string, EksTokenCache>();
  readonly #o: ClusterConnectorOptions;

  constructor(options: ClusterConnectorOptions) {
    this.#o = options;
  }

  /** Returns a client for `kubeConfig` that spends the cluster's budget. */
  #http(record: ClusterRecord, kubeConfig: KubeConfig): KubeHttp {
    const { budget } = this.#o;
    const limits = record.apiBudget ?? DEFAULT_API_BUDGET;
    return new KubeHttp({
      kubeConfig,
      ...(budget
        ? { beforeRequest: () => budget.acquire(record.id, limits) }
        : {}),
    });
  }

  /** Returns an API client for the cluster. */
  async connect(record: ClusterRecord): Promise<KubeHttp> {
    const { auth } = record;
    if (auth.type === 'kubeconfig') {
      return this.#http(record, kubeConfigFromFile(auth));
    }
    if (auth.type === 'eks') {
      const { sts, clock } = this.#o;
      if (sts === undefined)
        throw new ReconcilerError('EKS clusters need an STS client');
      let tokens = this.#tokens.get(record.id);
      if (tokens === undefined) {
        tokens = eksTokenCacheFor(auth, { client: sts, clock });
        this.#tokens.set(record.id, tokens);
      }
      const cache = tokens;
      return this.#http(
        record,
        kubeConfigForCluster(record, {
          type: 'token-source',
          token: () => cache.token(),
        })
      );
    }
    if (this.#o.secrets === undefined) {
      throw new ReconcilerError(
        'secret-authenticated clusters need Secrets Manager'
      );
    }
    const credential = await this.#o.secrets.credential(auth.secretArn);
    return this.#http(record, kubeConfigForCluster(record, credential));
  }
}
