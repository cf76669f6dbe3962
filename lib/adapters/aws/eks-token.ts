/**
 * EKS bearer tokens minted from IAM credentials without a network call, the
 * scheme of aws-iam-authenticator (kubernetes-sigs/aws-iam-authenticator
 * pkg/token/token.go): a SigV4-presigned STS `GetCallerIdentity` URL whose
 * signature covers the header `x-k8s-aws-id: <cluster>`, base64url-encoded
 * behind `k8s-aws-v1.`. The API server's authenticator replays the URL to STS
 * and maps the caller's ARN to a Kubernetes identity.
 */
import type { STSClient } from '@aws-sdk/client-sts';
import { SignatureV4 } from '@smithy/signature-v4';
import { ReconcilerError } from '../../errors.js';
import type { Clock, ClusterAuth } from '../../ports/index.js';
import { assumeRoleCredentials } from './assume-role-credentials.js';
import {
  type AwsCredentialProvider,
  type AwsCredentials,
  NodeSha256,
} from './aws-credentials.js';

/** token.go `v1Prefix`. */
export const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';
/** token.go `clusterIDHeader`: binds the token to one cluster. */
export const EKS_CLUSTER_ID_HEADER = 'x-k8s-aws-id';
/**
 * The authenticator accepts a token for 15 minutes after its X-Amz-Date,
 * whatever X-Amz-Expires says (token.go `presignedURLExpiration`).
 */
export const EKS_TOKEN_VALIDITY_MS = 15 * 60_000;
/** token.go hands out `expiration - 1 min`: re-mint a minute early. */
export const EKS_TOKEN_REFRESH_MARGIN_MS = 60_000;
/** token.go `requestPresignParam`; the authenticator requires 60. */
const PRESIGN_EXPIRES_SECONDS = 60;

/** A minted token and when it stops being accepted. */
export interface EksToken {
  token: string;
  /** X-Amz-Date + 15 min, or the credentials' expiry when sooner. */
  expiresAtMs: number;
}

/** Returns the regional STS host (China regions live under .com.cn). */
export const stsHost = (region: string): string =>
  region.startsWith('cn-')
    ? `sts.${region}.amazonaws.com.cn`
    : `sts.${region}.amazonaws.com`;

/** RFC 3986 encoding, as SigV4 canonicalises query strings. */
const rfc3986 = (s: string): string =>
  encodeURIComponent(s).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`
  );

/**
 * Returns an EKS token for `clusterName` signed with `credentials` at
 * `signingDate`; no network call. The date is truncated to whole seconds,
 * as X-Amz-Date is.
 *
 * @example
 * const { token } = await mintEksToken({
 *   clusterName: 'prod', region: 'eu-west-1', credentials, signingDate: new Date(),
 * });
 */
export const mintEksToken = async ({
  clusterName,
  region,
  credentials,
  signingDate,
}: {
  clusterName: string;
  region: string;
  credentials: AwsCredentials;
  signingDate: Date;
}): Promise<EksToken> => {
  const hostname = stsHost(region);
  const signer = new SignatureV4({
    credentials,
    region,
    service: 'sts',
    sha256: NodeSha256,
  });
  const signedAtMs = Math.floor(signingDate.getTime() / 1000) * 1000;
  const presigned = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: hostname, [EKS_CLUSTER_ID_HEADER]: clusterName },
    },
    { expiresIn: PRESIGN_EXPIRES_SECONDS, signingDate: new Date(signedAtMs) }
  );
  const query = Object.entries(presigned.query ?? {})
    .map(([k, v]) => [k, String(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`)
    .join('&');
  const url = `https://${hostname}/?${query}`;
  const validUntil = signedAtMs + EKS_TOKEN_VALIDITY_MS;
  const credentialsEnd = credentials.expiration?.getTime() ?? validUntil;
  return {
    token: EKS_TOKEN_PREFIX + Buffer.from(url).toString('base64url'),
    expiresAtMs: Math.min(validUntil, credentialsEnd),
  };
};

/**
 * Hands out an EKS token for one cluster, minting a new one a minute before
 * the current one ends (every 14 minutes: token.go's own cache). Concurrent
 * callers share one mint.
 */
export class EksTokenCache {
  readonly #clusterName: string;
  readonly #region: string;
  readonly #credentials: AwsCredentialProvider;
  readonly #clock: Clock;
  #current: EksToken | undefined;
  #pending: Promise<EksToken> | undefined;

  constructor({
    clusterName,
    region,
    credentials,
    clock,
  }: {
    clusterName: string;
    region: string;
    credentials: AwsCredentialProvider;
    clock: Clock;
  }) {
    this.#clusterName = clusterName;
    this.#region = region;
    this.#credentials = credentials;
    this.#clock = clock;
  }

  /** Returns a token that stays valid for at least another minute. */
  async token(): Promise<string> {
    const current = this.#current;
    if (
      current &&
      this.#clock.now() < current.expiresAtMs - EKS_TOKEN_REFRESH_MARGIN_MS
    ) {
      return current.token;
    }
    this.#pending ??= this.#mint().finally(() => {
      this.#pending = undefined;
    });
    this.#current = await this.#pending;
    return this.#current.token;
  }

  async #mint(): Promise<EksToken> {
    let credentials: AwsCredentials;
    try {
      credentials = await this.#credentials();
    } catch (cause) {
      throw new ReconcilerError(
        `get AWS credentials to mint an EKS token for cluster ${this.#clusterName}`,
        { cause }
      );
    }
    return mintEksToken({
      clusterName: this.#clusterName,
      region: this.#region,
      credentials,
      signingDate: new Date(this.#clock.now()),
    });
  }
}

/**
 * Returns the token cache for an `eks` cluster auth: signed with the
 * function's own identity (`client.config.credentials`, the default provider
 * chain), or with `auth.roleArn` assumed through `client` first.
 *
 * @example
 * const tokens = eksTokenCacheFor(record.auth, { client: sts, clock: systemClock });
 * const credential = { type: 'token-source', token: () => tokens.token() };
 */
export const eksTokenCacheFor = (
  auth: Extract<ClusterAuth, { type: 'eks' }>,
  { client, clock }: { client: STSClient; clock: Clock }
): EksTokenCache =>
  new EksTokenCache({
    clusterName: auth.clusterName,
    region: auth.region,
    clock,
    credentials: auth.roleArn
      ? assumeRoleCredentials({
          client,
          roleArn: auth.roleArn,
          cluster: auth.clusterName,
          clock,
        })
      : () => client.config.credentials(),
  });
