import {
  AssumeRoleCommand,
  type AssumeRoleCommandInput,
  type STSClient,
} from '@aws-sdk/client-sts';
import { describe, expect, it } from 'vitest';
import {
  assumeRoleCredentials,
  roleSessionName,
} from '#lib/adapters/aws/assume-role-credentials.js';
import { eksTokenCacheFor } from '#lib/adapters/aws/eks-token.js';
import { ReconcilerError } from '#lib/errors.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';

const MINUTE = 60_000;
const ROLE = 'arn:aws:iam::123456789012:role/dsr-reconciler';

/**
 * A minimal STS client: answers AssumeRole with numbered credentials valid
 * for an hour from the clock's time, or fails while `failing` is set. Only
 * adapter unit tests fake an SDK client (STYLE point 20).
 */
class FakeSts {
  readonly inputs: AssumeRoleCommandInput[] = [];
  failing: Error | undefined;

  constructor(private readonly clock: FakeClock) {}

  async send(command: unknown) {
    expect(command).toBeInstanceOf(AssumeRoleCommand);
    this.inputs.push((command as AssumeRoleCommand).input);
    if (this.failing) throw this.failing;
    const n = this.inputs.length;
    return {
      Credentials: {
        AccessKeyId: `ASIA${n}`,
        SecretAccessKey: `secret-${n}`,
        SessionToken: `session-${n}`,
        Expiration: new Date(this.clock.now() + 60 * MINUTE),
      },
    };
  }

  get client(): STSClient {
    return this as unknown as STSClient;
  }
}

const credentialOf = (token: string): string | null =>
  new URL(
    Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString()
  ).searchParams.get('X-Amz-Credential');

describe('assumeRoleCredentials', () => {
  it('assumes the role once per hour while tokens are minted every 14 minutes', async () => {
    // Prepare
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const sts = new FakeSts(clock);
    const tokens = eksTokenCacheFor(
      { type: 'eks', clusterName: 'prod', region: 'us-east-1', roleArn: ROLE },
      { client: sts.client, clock }
    );
    // Act: mints at 0, 14, 28, 42 min use the first credentials; at 56 min
    // they are within 5 minutes of their end and are replaced.
    const credentialsUsed: (string | null)[] = [];
    for (let i = 0; i < 5; i++) {
      credentialsUsed.push(credentialOf(await tokens.token()));
      clock.step(14 * MINUTE);
    }
    // Assess
    expect(credentialsUsed.map((c) => c?.split('/')[0])).toEqual([
      'ASIA1',
      'ASIA1',
      'ASIA1',
      'ASIA1',
      'ASIA2',
    ]);
    expect(sts.inputs).toEqual([
      { RoleArn: ROLE, RoleSessionName: 'dsr-prod' },
      { RoleArn: ROLE, RoleSessionName: 'dsr-prod' },
    ]);
  });

  it('refreshes 5 minutes before expiry, not before', async () => {
    // Prepare
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const sts = new FakeSts(clock);
    const provider = assumeRoleCredentials({
      client: sts.client,
      roleArn: ROLE,
      cluster: 'prod',
      clock,
    });
    const first = await provider();
    // Act
    clock.step(55 * MINUTE - 1);
    const cached = await provider();
    clock.step(1);
    const refreshed = await provider();
    // Assess
    expect(cached).toBe(first);
    expect(refreshed.accessKeyId).toBe('ASIA2');
    expect(refreshed.sessionToken).toBe('session-2');
  });

  it('shares one call among concurrent callers', async () => {
    // Prepare
    const clock = new FakeClock();
    const sts = new FakeSts(clock);
    const provider = assumeRoleCredentials({
      client: sts.client,
      roleArn: ROLE,
      cluster: 'prod',
      clock,
    });
    // Act
    const [a, b] = await Promise.all([provider(), provider()]);
    // Assess
    expect(a).toBe(b);
    expect(sts.inputs).toHaveLength(1);
  });

  it('wraps an STS failure and tries again on the next call', async () => {
    // Prepare
    const clock = new FakeClock();
    const sts = new FakeSts(clock);
    const provider = assumeRoleCredentials({
      client: sts.client,
      roleArn: ROLE,
      cluster: 'prod',
      clock,
    });
    const cause = Object.assign(new Error('not authorized'), {
      name: 'AccessDenied',
    });
    sts.failing = cause;
    // Act
    const error = await provider().catch((e: unknown) => e);
    sts.failing = undefined;
    const after = await provider();
    // Assess
    expect(error).toBeInstanceOf(ReconcilerError);
    expect((error as Error).message).toBe(
      `assume role ${ROLE} for cluster prod`
    );
    expect((error as Error).cause).toBe(cause);
    expect(after.accessKeyId).toBe('ASIA2');
  });
});

describe('roleSessionName', () => {
  it.each([
    { cluster: 'prod', name: 'dsr-prod' },
    { cluster: 'a:b c', name: 'dsr-a-b-c' },
    { cluster: 'x'.repeat(100), name: `dsr-${'x'.repeat(60)}` },
  ])('turns $cluster into a valid STS session name', ({ cluster, name }) => {
    // Act
    const got = roleSessionName(cluster);
    // Assess
    expect(got).toBe(name);
    expect(got).toMatch(/^[\w+=,.@-]{2,64}$/);
  });
});
