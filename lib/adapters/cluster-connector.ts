/**
 * Opens a registered cluster's API with the credential its record names:
 * an EKS token minted from this function's IAM identity (one token cache per
 * cluster, re-minted before expiry), a credential kept in Secrets Manager
 * (read once per container), or — for local runs and tests only — a
 * kubeconfig file. TLS is always verified against the record's CA.
 */
import type { STSClient } from '@aws-sdk/client-sts';
import { ReconcilerError } from '../errors.js';
import type { Clock, ClusterRecord } from '../ports.js';
import { type EksTokenCache, eksTokenCacheFor } from './aws/eks-token.js';
import type { SecretCredentials } from './aws/secret-credentials.js';
import {
  kubeConfigForCluster,
  kubeConfigFromFile,
} from './kube/kube-config-for-cluster.js';
import { KubeHttp } from './kube/kube-http.js';

/** Connects to clusters; keeps token caches across connections. */
export class ClusterConnector {
  readonly #tokens = new Map<string, EksTokenCache>();
  readonly #o: {
    sts?: STSClient;
    secrets?: SecretCredentials;
    clock: Clock;
  };

  constructor(options: {
    sts?: STSClient;
    secrets?: SecretCredentials;
    clock: Clock;
  }) {
    this.#o = options;
  }

  /** Returns an API client for the cluster. */
  async connect(record: ClusterRecord): Promise<KubeHttp> {
    const { auth } = record;
    if (auth.type === 'kubeconfig') {
      return new KubeHttp({ kubeConfig: kubeConfigFromFile(auth) });
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
      return new KubeHttp({
        kubeConfig: kubeConfigForCluster(record, {
          type: 'token-source',
          token: () => cache.token(),
        }),
      });
    }
    if (this.#o.secrets === undefined) {
      throw new ReconcilerError(
        'secret-authenticated clusters need Secrets Manager'
      );
    }
    const credential = await this.#o.secrets.credential(auth.secretArn);
    return new KubeHttp({
      kubeConfig: kubeConfigForCluster(record, credential),
    });
  }
}
