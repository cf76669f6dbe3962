/**
 * Opens a registered cluster's API with the credential its record names:
 * an EKS token minted from this function's IAM identity (one token cache per
 * cluster name, region and role, re-minted before expiry), a credential kept in Secrets Manager
 * (read once per container), or — for local runs and tests only — a
 * kubeconfig file. TLS is always verified against the record's CA, and an
 * EKS or secret credential goes only to the endpoint and CA that EKS or the
 * secret names.
 */
import type { STSClient } from '@aws-sdk/client-sts';
import { ReconcilerError } from '../../errors.js';
import { apiSignalOf } from '../../policy/adaptive-rate.js';
import { DEFAULT_API_CEILING } from '../../policy/request-budget.js';
import type {
  Clock,
  ClusterConnection,
  ClusterRecord,
  Logger,
  RequestBudget,
} from '../../ports/index.js';
import { ownedKind } from '../../reconcile/k8s/daemon-set-kind.js';
import type { EksClusterTarget } from '../aws/eks-cluster-directory.js';
import { type EksTokenCache, eksTokenCacheFor } from '../aws/eks-token.js';
import type { SecretCredentials } from '../aws/secret-credentials.js';
import {
  type ClusterAccess,
  clusterAccessFor,
  recordMatches,
} from './client/cluster-access.js';
import { KubeHttp } from './client/kube-http.js';
import { ClusterCredentialError } from './cluster-credential.js';
import { kubeClusterConnection } from './kube-cluster-connection.js';

/** What a ClusterConnector is built from. */
export interface ClusterConnectorOptions {
  sts?: STSClient;
  secrets?: SecretCredentials;
  /**
   * Paces every request to a cluster and adapts the pace to its answers
   * (shared per-cluster budget).
   */
  budget?: RequestBudget;
  clock: Clock;
  /** Where the connections' Event recorders report failures. */
  logger: Logger;
  /**
   * Opens `kubeconfig` records (a file on this machine, which may run exec
   * plugins and read token files): local runs, the CLI and tests only, with
   * `kubeConfigFromFile`. The deployed functions leave it out (and so never
   * bundle client-node's KubeConfig) and refuse such records.
   */
  kubeconfigFiles?: (
    auth: Extract<ClusterRecord['auth'], { type: 'kubeconfig' }>
  ) => ClusterAccess;
  /**
   * Keeps each cluster's nodes and DaemonSet pods in memory, current by
   * watch, so syncs read what changed (reconcilers; see
   * kube-cached-cluster-reader.ts).
   */
  cacheReads?: boolean;
  /** The field manager of every write (default: the product's bare name). */
  fieldManager?: string;
  /** Where EKS clusters are, asked of EKS (never taken from the record). */
  eksTargets?: {
    describe(
      auth: Extract<ClusterRecord['auth'], { type: 'eks' }>,
      clusterId: string,
      fresh?: boolean
    ): Promise<EksClusterTarget>;
  };
}

/**
 * Returns the key of an EKS token cache: what its tokens are minted for,
 * not the record's id, which `clusters add --replace` may point elsewhere.
 */
const tokenKey = (auth: Extract<ClusterRecord['auth'], { type: 'eks' }>) =>
  JSON.stringify([auth.clusterName, auth.region, auth.roleArn ?? '']);

/** Connects to clusters; keeps token caches across connections. */
export class ClusterConnector {
  readonly #tokens = new Map<string, EksTokenCache>();
  readonly #o: ClusterConnectorOptions;

  constructor(options: ClusterConnectorOptions) {
    this.#o = options;
  }

  /**
   * Returns the cluster's ports over `kubeConfig`, spending its budget and
   * telling it every answer.
   */
  #http(record: ClusterRecord, kubeConfig: ClusterAccess): ClusterConnection {
    const { budget } = this.#o;
    const ceiling = record.apiBudget ?? DEFAULT_API_CEILING;
    const http = new KubeHttp({
      kubeConfig,
      ...(this.#o.fieldManager ? { userAgent: this.#o.fieldManager } : {}),
      ...(budget
        ? {
            beforeRequest: () => budget.acquire(record.id, ceiling),
            afterResponse: ({ latencyMs, error }) =>
              void budget.report(
                record.id,
                ceiling,
                apiSignalOf(latencyMs, error)
              ),
          }
        : {}),
    });
    return kubeClusterConnection(
      http,
      this.#o.logger,
      ownedKind(record.ownership),
      { cacheReads: this.#o.cacheReads ?? false }
    );
  }

  /**
   * Forgets what this container keeps of the record's credential (a
   * Secrets Manager read, an EKS token and its role's session), so the
   * next connect reads or mints it afresh: call it after a 401.
   */
  forgetCredential(record: ClusterRecord): void {
    const { auth } = record;
    if (auth.type === 'secret') this.#o.secrets?.invalidate(auth.secretArn);
    if (auth.type === 'eks') this.#tokens.delete(tokenKey(auth));
  }

  /** Opens the cluster: returns its ports, bound to one connection. */
  async connect(record: ClusterRecord): Promise<ClusterConnection> {
    const { auth } = record;
    if (auth.type === 'kubeconfig') {
      const { kubeconfigFiles } = this.#o;
      if (kubeconfigFiles === undefined) {
        throw new ClusterCredentialError(
          `cluster ${record.id} is registered with a kubeconfig file, which only local runs may use; register it with --eks-cluster or --secret-arn`
        );
      }
      return this.#http(record, kubeconfigFiles(auth));
    }
    if (auth.type === 'eks') {
      const { sts, clock, eksTargets } = this.#o;
      if (sts === undefined || eksTargets === undefined) {
        throw new ReconcilerError('EKS clusters need STS and EKS clients');
      }
      // The token goes only where EKS says the cluster is: a record whose
      // endpoint or CA was changed in the table is refused, not followed.
      const matches = (t: EksClusterTarget) =>
        recordMatches(record, { server: t.endpoint, caData: t.caData });
      let target = await eksTargets.describe(auth, record.id);
      // A remembered answer may predate a rebuild the record follows.
      if (!matches(target)) {
        target = await eksTargets.describe(auth, record.id, true);
      }
      if (!matches(target)) {
        throw new ClusterCredentialError(
          `cluster ${record.id}: the registered endpoint or CA differs from what EKS reports for ${auth.clusterName} (${target.endpoint}); nothing was sent. Re-register it if the cluster was rebuilt`
        );
      }
      const key = tokenKey(auth);
      let tokens = this.#tokens.get(key);
      if (tokens === undefined) {
        tokens = eksTokenCacheFor(auth, { client: sts, clock });
        this.#tokens.set(key, tokens);
      }
      const cache = tokens;
      return this.#http(
        record,
        clusterAccessFor(record, {
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
    // As for EKS: the credential goes only where its secret says.
    const target = 'target' in credential ? credential.target : undefined;
    if (target === undefined) {
      throw new ClusterCredentialError(
        `cluster ${record.id}: secret ${auth.secretArn} does not name the API server it is for; nothing was sent. Store {"token": "…", "server": "${record.endpoint}", "caData": "<base64 CA>"} in it (or a kubeconfig whose current cluster has server and certificate-authority-data), then run npx dsr clusters check --id ${record.id}`
      );
    }
    if (!recordMatches(record, target)) {
      throw new ClusterCredentialError(
        `cluster ${record.id}: the registered endpoint or CA differs from what secret ${auth.secretArn} is for (${target.server}); nothing was sent. Re-register it (clusters add --replace) if the cluster moved`
      );
    }
    return this.#http(record, clusterAccessFor(record, credential));
  }
}
