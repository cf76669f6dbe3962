import { createHash, createHmac } from 'node:crypto';
import type { STSClient } from '@aws-sdk/client-sts';
import { describe, expect, it } from 'vitest';
import type { AwsCredentials } from '#lib/adapters/aws/aws-credentials.js';
import {
  EksTokenCache,
  eksTokenCacheFor,
  mintEksToken,
} from '#lib/adapters/aws/eks-token.js';
import { ReconcilerError } from '#lib/errors.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';

const MINUTE = 60_000;
/** The AWS documentation's example key pair. */
const credentials: AwsCredentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};

/** Returns the presigned URL inside a token (checks the encoding too). */
const decode = (token: string): URL => {
  expect(token.startsWith('k8s-aws-v1.')).toBe(true);
  const body = token.slice('k8s-aws-v1.'.length);
  // base64url without padding: no '+', '/' or '='.
  expect(body).toMatch(/^[A-Za-z0-9_-]+$/);
  return new URL(Buffer.from(body, 'base64url').toString('utf8'));
};

/** RFC 3986 URI encoding (SigV4 "UriEncode"). */
const uriEncode = (s: string): string =>
  encodeURIComponent(s).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`
  );
const hmac = (key: Buffer | string, data: string): Buffer =>
  createHmac('sha256', key).update(data, 'utf8').digest();
const sha256Hex = (data: string): string =>
  createHash('sha256').update(data, 'utf8').digest('hex');

/**
 * Returns the query a presigned GetCallerIdentity URL must carry and its
 * signature, computed from the SigV4 spec (docs.aws.amazon.com/IAM/latest/
 * UserGuide/create-signed-request.html), independently of the code under
 * test.
 */
const referencePresign = ({
  clusterName,
  region,
  creds,
  amzDate,
}: {
  clusterName: string;
  region: string;
  creds: AwsCredentials;
  amzDate: string;
}) => {
  const host = `sts.${region}.amazonaws.com`;
  const date = amzDate.slice(0, 8);
  const scope = `${date}/${region}/sts/aws4_request`;
  const query: Record<string, string> = {
    Action: 'GetCallerIdentity',
    Version: '2011-06-15',
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Credential': `${creds.accessKeyId}/${scope}`,
    'X-Amz-Date': amzDate,
    'X-Amz-Expires': '60',
    'X-Amz-SignedHeaders': 'host;x-k8s-aws-id',
  };
  if (creds.sessionToken) query['X-Amz-Security-Token'] = creds.sessionToken;
  const canonicalQuery = Object.keys(query)
    .map((k) => [uriEncode(k), uriEncode(query[k] as string)] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalRequest = [
    'GET',
    '/',
    canonicalQuery,
    `host:${host}\nx-k8s-aws-id:${clusterName}\n`,
    'host;x-k8s-aws-id',
    sha256Hex(''),
  ].join('\n');
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    scope,
    sha256Hex(canonicalRequest),
  ].join('\n');
  const kDate = hmac(`AWS4${creds.secretAccessKey}`, date);
  const kSigning = hmac(hmac(hmac(kDate, region), 'sts'), 'aws4_request');
  return {
    host,
    query,
    signature: hmac(kSigning, stringToSign).toString('hex'),
  };
};

/** Returns a credential provider that counts its calls. */
const countingProvider = (creds: AwsCredentials = credentials) => {
  const calls = { count: 0 };
  const provider = async () => {
    calls.count++;
    return creds;
  };
  return { calls, provider };
};

describe('mintEksToken', () => {
  it.each([
    { name: 'long-term credentials', creds: credentials },
    {
      name: 'session credentials',
      creds: { ...credentials, sessionToken: 'FwoGZXIvYXdzE+/session=' },
    },
  ])(
    'presigns GetCallerIdentity as aws-iam-authenticator does, with $name',
    async ({ creds }) => {
      // Prepare
      const signingDate = new Date(Date.UTC(2026, 1, 3, 4, 5, 6, 789));
      // Act
      const { token, expiresAtMs } = await mintEksToken({
        clusterName: 'prod-eu_1',
        region: 'eu-west-1',
        credentials: creds,
        signingDate,
      });
      // Assess
      const url = decode(token);
      const expected = referencePresign({
        clusterName: 'prod-eu_1',
        region: 'eu-west-1',
        creds,
        amzDate: '20260203T040506Z',
      });
      expect(url.protocol).toBe('https:');
      expect(url.host).toBe('sts.eu-west-1.amazonaws.com');
      expect(url.pathname).toBe('/');
      const params = Object.fromEntries(url.searchParams);
      const { 'X-Amz-Signature': signature, ...signed } = params;
      expect(signed).toEqual(expected.query);
      expect(params['X-Amz-Credential']).toBe(
        'AKIDEXAMPLE/20260203/eu-west-1/sts/aws4_request'
      );
      expect(signature).toBe(expected.signature);
      expect(expiresAtMs).toBe(Date.UTC(2026, 1, 3, 4, 20, 6));
    }
  );

  it('signs for the cluster it is given (the signature binds x-k8s-aws-id)', async () => {
    // Prepare
    const signingDate = new Date(Date.UTC(2026, 0, 1));
    const mint = (clusterName: string) =>
      mintEksToken({
        clusterName,
        region: 'us-east-1',
        credentials,
        signingDate,
      });
    // Act
    const a = decode((await mint('a')).token);
    const b = decode((await mint('b')).token);
    // Assess
    expect(a.searchParams.get('X-Amz-Signature')).not.toBe(
      b.searchParams.get('X-Amz-Signature')
    );
    expect(a.searchParams.get('X-Amz-Signature')).toBe(
      referencePresign({
        clusterName: 'a',
        region: 'us-east-1',
        creds: credentials,
        amzDate: '20260101T000000Z',
      }).signature
    );
  });

  it('uses the .com.cn STS host in China regions', async () => {
    // Act
    const { token } = await mintEksToken({
      clusterName: 'c',
      region: 'cn-north-1',
      credentials,
      signingDate: new Date(),
    });
    // Assess
    expect(decode(token).host).toBe('sts.cn-north-1.amazonaws.com.cn');
  });

  it('ends the token with its credentials when they expire first', async () => {
    // Prepare
    const signingDate = new Date(Date.UTC(2026, 0, 1));
    const expiration = new Date(signingDate.getTime() + 10 * MINUTE);
    // Act
    const { expiresAtMs } = await mintEksToken({
      clusterName: 'c',
      region: 'us-east-1',
      credentials: { ...credentials, expiration },
      signingDate,
    });
    // Assess
    expect(expiresAtMs).toBe(expiration.getTime());
  });
});

describe('EksTokenCache', () => {
  const newCache = (
    clock: FakeClock,
    provider: () => Promise<AwsCredentials>
  ) =>
    new EksTokenCache({
      clusterName: 'prod',
      region: 'us-east-1',
      credentials: provider,
      clock,
    });

  it('re-mints at 14 minutes, not before', async () => {
    // Prepare
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const { calls, provider } = countingProvider();
    const cache = newCache(clock, provider);
    const first = await cache.token();
    // Act
    clock.step(14 * MINUTE - 1);
    const justBefore = await cache.token();
    clock.step(1);
    const at14 = await cache.token();
    // Assess
    expect(justBefore).toBe(first);
    expect(at14).not.toBe(first);
    expect(decode(at14).searchParams.get('X-Amz-Date')).toBe(
      '20260101T001400Z'
    );
    expect(calls.count).toBe(2);
  });

  it('mints once for concurrent callers', async () => {
    // Prepare
    const clock = new FakeClock();
    const { calls, provider } = countingProvider();
    const cache = newCache(clock, provider);
    // Act
    const tokens = await Promise.all([cache.token(), cache.token()]);
    // Assess
    expect(tokens[0]).toBe(tokens[1]);
    expect(calls.count).toBe(1);
  });

  it('re-mints a minute before short-lived credentials expire', async () => {
    // Prepare
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const expiration = new Date(clock.now() + 10 * MINUTE);
    const { calls, provider } = countingProvider({
      ...credentials,
      expiration,
    });
    const cache = newCache(clock, provider);
    await cache.token();
    // Act
    clock.step(9 * MINUTE - 1);
    await cache.token();
    const before = calls.count;
    clock.step(1);
    await cache.token();
    // Assess
    expect(before).toBe(1);
    expect(calls.count).toBe(2);
  });

  it('wraps a credential failure with what it was doing', async () => {
    // Prepare
    const cause = new Error('CredentialsProviderError');
    const cache = newCache(new FakeClock(), () => Promise.reject(cause));
    // Act
    const error = await cache.token().catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ReconcilerError);
    expect((error as Error).message).toContain('cluster prod');
    expect((error as Error).cause).toBe(cause);
  });
});

describe('eksTokenCacheFor', () => {
  it('signs with the client’s default credentials when no role is given', async () => {
    // Prepare
    const { calls, provider } = countingProvider();
    const client = {
      config: { credentials: provider },
    } as unknown as STSClient;
    const cache = eksTokenCacheFor(
      { type: 'eks', clusterName: 'prod', region: 'us-east-1' },
      { client, clock: new FakeClock() }
    );
    // Act
    const url = decode(await cache.token());
    // Assess
    expect(calls.count).toBe(1);
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^AKIDEXAMPLE\//);
  });
});
