/**
 * Credentials of an assumed IAM role, cached until shortly before they
 * expire, so minting an EKS token every 14 minutes calls STS about once an
 * hour.
 */
import {
  AssumeRoleCommand,
  type AssumeRoleCommandOutput,
  type STSClient,
} from '@aws-sdk/client-sts';
import { ReconcilerError } from '../../errors.js';
import type { Clock } from '../../ports/index.js';
import type {
  AwsCredentialProvider,
  AwsCredentials,
} from './aws-credentials.js';

/**
 * Assumed credentials are replaced this long before they expire, so a token
 * signed with them never outlives them by surprise (the SDK's own providers
 * refresh 5 minutes early too).
 */
export const ASSUMED_CREDENTIALS_REFRESH_MARGIN_MS = 5 * 60_000;

/** STS `RoleSessionName`: 2–64 characters of `[\w+=,.@-]`. */
const MAX_SESSION_NAME = 64;

/** Returns a valid STS session name `dsr-<cluster>` for CloudTrail. */
export const roleSessionName = (cluster: string): string =>
  `dsr-${cluster}`.replace(/[^\w+=,.@-]/g, '-').slice(0, MAX_SESSION_NAME);

/**
 * Returns a provider of the credentials of `roleArn`, assumed with `client`
 * (whose own credentials come from the default chain) under the session
 * name `dsr-<cluster>`. Concurrent callers share one AssumeRole call; a
 * failed call is not cached.
 *
 * @example
 * const credentials = assumeRoleCredentials({
 *   client: new STSClient({}), roleArn, cluster: 'prod', clock: systemClock,
 * });
 */
export const assumeRoleCredentials = ({
  client,
  roleArn,
  cluster,
  clock,
}: {
  client: STSClient;
  roleArn: string;
  cluster: string;
  clock: Clock;
}): AwsCredentialProvider => {
  let cached: AwsCredentials | undefined;
  let pending: Promise<AwsCredentials> | undefined;
  const assume = async (): Promise<AwsCredentials> => {
    let out: AssumeRoleCommandOutput;
    try {
      out = await client.send(
        new AssumeRoleCommand({
          RoleArn: roleArn,
          RoleSessionName: roleSessionName(cluster),
        })
      );
    } catch (cause) {
      throw new ReconcilerError(
        `assume role ${roleArn} for cluster ${cluster}`,
        { cause }
      );
    }
    const c = out.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey || !c.Expiration) {
      throw new ReconcilerError(
        `assume role ${roleArn} for cluster ${cluster}: STS returned no credentials`
      );
    }
    return {
      accessKeyId: c.AccessKeyId,
      secretAccessKey: c.SecretAccessKey,
      sessionToken: c.SessionToken,
      expiration: c.Expiration,
    };
  };
  return async () => {
    const fresh =
      cached?.expiration !== undefined &&
      clock.now() <
        cached.expiration.getTime() - ASSUMED_CREDENTIALS_REFRESH_MARGIN_MS;
    if (fresh && cached) return cached;
    pending ??= assume().finally(() => {
      pending = undefined;
    });
    cached = await pending;
    return cached;
  };
};
