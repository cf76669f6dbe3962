import {
  GetSecretValueCommand,
  type GetSecretValueCommandOutput,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { SecretCredentials } from '#lib/adapters/aws/secret-credentials.js';
import { ClusterCredentialError } from '#lib/adapters/kube/cluster-credential.js';
import { ReconcilerError } from '#lib/errors.js';

const ARN =
  'arn:aws:secretsmanager:us-east-1:123456789012:secret:dsr/prod-AbCdEf';
/**
 * Text that must never show up in an error; short, because JSON.parse
 * quotes only the first 10 characters of what it could not parse.
 */
const MARKER = 'Zq9Xw7k';

/**
 * A minimal Secrets Manager client answering GetSecretValue from a map; only
 * adapter unit tests fake an SDK client (STYLE point 20).
 */
class FakeSecretsManager {
  readonly reads: string[] = [];
  failing: Error | undefined;

  constructor(
    private readonly values: Record<
      string,
      Partial<GetSecretValueCommandOutput>
    >
  ) {}

  async send(command: unknown) {
    expect(command).toBeInstanceOf(GetSecretValueCommand);
    const id = (command as GetSecretValueCommand).input.SecretId as string;
    this.reads.push(id);
    if (this.failing) throw this.failing;
    return this.values[id] ?? {};
  }

  get client(): SecretsManagerClient {
    return this as unknown as SecretsManagerClient;
  }
}

const kubeconfig = (user: string, cluster = '') => `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://10.0.0.1
    certificate-authority-data: QUJD
${cluster}
users:
- name: u
  user:
${user}
contexts:
- name: ctx
  context: {cluster: c, user: u}
current-context: ctx
`;

/** Returns everything an error could show in a log line. */
const everything = (e: unknown): string => {
  const parts: string[] = [];
  let cur: unknown = e;
  while (cur instanceof Error) {
    parts.push(cur.message, cur.stack ?? '', JSON.stringify(cur));
    cur = cur.cause;
  }
  parts.push(String(cur));
  return parts.join('\n');
};

describe('SecretCredentials', () => {
  it('reads a token secret once and serves it from memory', async () => {
    // Prepare
    const sm = new FakeSecretsManager({
      [ARN]: { SecretString: JSON.stringify({ token: 'eyJhbGciOi.abc' }) },
    });
    const secrets = new SecretCredentials({ client: sm.client });
    // Act
    const [a, b] = await Promise.all([
      secrets.credential(ARN),
      secrets.credential(ARN),
    ]);
    const c = await secrets.credential(ARN);
    // Assess
    expect(a).toEqual({ type: 'token', token: 'eyJhbGciOi.abc' });
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(sm.reads).toEqual([ARN]);
  });

  it('reads the secret again after invalidate', async () => {
    // Prepare
    const sm = new FakeSecretsManager({
      [ARN]: { SecretString: JSON.stringify({ token: 'old' }) },
    });
    const secrets = new SecretCredentials({ client: sm.client });
    await secrets.credential(ARN);
    // Act
    secrets.invalidate(ARN);
    await secrets.credential(ARN);
    // Assess
    expect(sm.reads).toEqual([ARN, ARN]);
  });

  it('returns a kubeconfig secret with inline credentials, for its current cluster', async () => {
    // Prepare
    const text = kubeconfig('    token: abc');
    const sm = new FakeSecretsManager({
      [ARN]: {
        SecretBinary: new TextEncoder().encode(
          JSON.stringify({ kubeconfig: text })
        ),
      },
    });
    const secrets = new SecretCredentials({ client: sm.client });
    // Act
    const credential = await secrets.credential(ARN);
    // Assess
    expect(credential).toEqual({
      type: 'kubeconfig',
      kubeconfig: text,
      target: { server: 'https://10.0.0.1', caData: 'QUJD' },
    });
  });

  it('returns the server and CA a token secret names', async () => {
    // Prepare
    const target = { server: 'https://10.0.0.1', caData: 'QUJD' };
    const sm = new FakeSecretsManager({
      [ARN]: { SecretString: JSON.stringify({ token: 'abc', ...target }) },
    });
    // Act
    const credential = await new SecretCredentials({
      client: sm.client,
    }).credential(ARN);
    // Assess
    expect(credential).toEqual({ type: 'token', token: 'abc', target });
  });

  it('wraps a Secrets Manager failure and does not keep it', async () => {
    // Prepare
    const sm = new FakeSecretsManager({
      [ARN]: { SecretString: JSON.stringify({ token: 'abc' }) },
    });
    const cause = Object.assign(new Error('no such secret'), {
      name: 'ResourceNotFoundException',
    });
    sm.failing = cause;
    const secrets = new SecretCredentials({ client: sm.client });
    // Act
    const error = await secrets.credential(ARN).catch((e: unknown) => e);
    sm.failing = undefined;
    const after = await secrets.credential(ARN);
    // Assess
    expect(error).toBeInstanceOf(ReconcilerError);
    expect((error as Error).message).toBe(`read cluster credential ${ARN}`);
    expect((error as Error).cause).toBe(cause);
    expect(after).toEqual({ type: 'token', token: 'abc' });
  });

  it.each([
    { name: 'text that is not JSON', text: MARKER, says: 'not JSON' },
    {
      name: 'JSON that breaks off',
      text: `{"token": "${MARKER}`,
      says: 'not JSON',
    },
    { name: 'a JSON array', text: `["${MARKER}"]`, says: 'exactly one' },
    {
      name: 'both fields',
      text: JSON.stringify({ token: MARKER, kubeconfig: MARKER }),
      says: 'exactly one',
    },
    {
      name: 'an unknown field',
      text: JSON.stringify({ [MARKER]: MARKER }),
      says: 'exactly one',
    },
    {
      name: 'a server without its CA',
      text: JSON.stringify({ token: MARKER, server: 'https://10.0.0.1' }),
      says: 'server and caData go together',
    },
    {
      name: 'a token with a line break',
      text: JSON.stringify({ token: `${MARKER}\nX-Evil: 1` }),
      says: 'control characters',
    },
    {
      name: 'a kubeconfig that is not YAML',
      text: JSON.stringify({ kubeconfig: `a: [${MARKER}` }),
      says: 'not valid YAML',
    },
    {
      name: 'a kubeconfig with an exec plugin',
      text: JSON.stringify({
        kubeconfig: kubeconfig(`    exec: {command: ${MARKER}}`),
      }),
      says: 'exec credential plugin',
    },
    {
      name: 'a kubeconfig with an auth-provider',
      text: JSON.stringify({
        kubeconfig: kubeconfig(
          `    auth-provider: {name: oidc, config: {id-token: ${MARKER}}}`
        ),
      }),
      says: 'auth-provider plugin',
    },
    {
      name: 'a kubeconfig reading a token file',
      text: JSON.stringify({
        kubeconfig: kubeconfig(`    token-file: /proc/self/environ${MARKER}`),
      }),
      says: 'reads its token from a file',
    },
    {
      name: 'a kubeconfig skipping TLS verification',
      text: JSON.stringify({
        kubeconfig: kubeconfig(
          `    token: ${MARKER}`,
          '    insecure-skip-tls-verify: true'
        ),
      }),
      says: 'insecure-skip-tls-verify',
    },
    {
      name: 'a kubeconfig whose user has no credential',
      text: JSON.stringify({
        kubeconfig: kubeconfig(`    as: ${MARKER}`),
      }),
      says: 'unsupported fields',
    },
    {
      name: 'a kubeconfig without a current context',
      text: JSON.stringify({
        kubeconfig: kubeconfig(`    token: ${MARKER}`).replace(
          'current-context: ctx',
          `current-context: ${MARKER}`
        ),
      }),
      says: 'no current-context',
    },
  ])('refuses $name without quoting the secret', async ({ text, says }) => {
    // Prepare
    const sm = new FakeSecretsManager({ [ARN]: { SecretString: text } });
    const secrets = new SecretCredentials({ client: sm.client });
    // Act
    const error = await secrets.credential(ARN).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ClusterCredentialError);
    expect((error as Error).message).toContain(ARN);
    expect((error as Error).message).toContain(says);
    expect((error as Error).cause).toBeUndefined();
    expect(everything(error)).not.toContain(MARKER);
  });

  it('refuses a secret without a value', async () => {
    // Prepare
    const sm = new FakeSecretsManager({ [ARN]: {} });
    const secrets = new SecretCredentials({ client: sm.client });
    // Act
    const error = await secrets.credential(ARN).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ClusterCredentialError);
    expect((error as Error).message).toBe(`secret ${ARN}: has no value`);
  });
});
