/**
 * A secret-auth record's endpoint and CA must be what its secret names: a
 * record re-pointed in the table at another server is refused before the
 * secret's token is sent, as EKS records are refused when EKS disagrees.
 * The API server is a local HTTPS server that counts what reaches it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretCredentials } from '#lib/adapters/aws/secret-credentials.js';
import {
  type ClusterCredential,
  ClusterCredentialError,
} from '#lib/adapters/kube/cluster-credential.js';
import { ClusterConnector } from '#lib/adapters/kube/kube-cluster-connector.js';
import type { ClusterRecord } from '#lib/ports/index.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';
import { FakeLogger } from '#test/helpers/fakes/fake-logger.js';
import {
  type LoopbackApiServer,
  startLoopbackApiServer,
} from '#test/helpers/loopback-api-server.js';
import { selfSignedPem } from '#test/helpers/self-signed-pem.js';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:dsr/prod';
const otherCa = Buffer.from(selfSignedPem('attacker')).toString('base64');

describe('ClusterConnector with secret records', () => {
  let api: LoopbackApiServer;
  let endpoint: string;
  let caData: string;
  let authorizations: (string | undefined)[];

  beforeAll(async () => {
    api = await startLoopbackApiServer();
    ({ endpoint, caData, authorizations } = api);
  });
  afterAll(() => api.close());

  const record = (r: Partial<ClusterRecord> = {}): ClusterRecord => ({
    id: 'prod',
    endpoint,
    caData,
    auth: { type: 'secret', secretArn: ARN },
    ownership: 'apps/v1',
    bridgeMode: 'watch',
    ...r,
  });
  /** Connects `r` with a secret holding `credential`; probes once. */
  const probe = async (r: ClusterRecord, credential: ClusterCredential) => {
    authorizations.length = 0;
    const connector = new ClusterConnector({
      secrets: {
        credential: async () => credential,
      } as unknown as SecretCredentials,
      clock: new FakeClock(),
      logger: new FakeLogger(),
    });
    const connection = await connector.connect(r);
    try {
      return await connection.probe.version();
    } finally {
      connection.close();
    }
  };
  const token = (): ClusterCredential => ({
    type: 'token',
    token: 'sa-token',
    target: { server: `${endpoint}/`, caData },
  });

  it('sends the token to the server its secret names', async () => {
    // Act
    const version = await probe(record(), token());
    // Assess
    expect(version).toBe('v1.33.0');
    expect(authorizations).toEqual(['Bearer sa-token']);
  });

  it.each([
    ['endpoint', () => ({ endpoint: 'https://attacker.example.com' })],
    ['CA', () => ({ caData: otherCa })],
  ])(
    'refuses a record whose %s differs from the secret’s, before any request',
    async (_what, change) => {
      // Act
      const error = await probe(record(change()), token()).catch(
        (e: unknown) => e
      );
      // Assess
      expect(error).toBeInstanceOf(ClusterCredentialError);
      expect((error as Error).message).toContain(
        `the registered endpoint or CA differs from what secret ${ARN} is for`
      );
      expect(authorizations).toEqual([]);
    }
  );

  it('refuses a secret that does not name its server, saying how to fix it', async () => {
    // Act
    const error = await probe(record(), {
      type: 'token',
      token: 'sa-token',
    }).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ClusterCredentialError);
    expect((error as Error).message).toContain(
      `secret ${ARN} does not name the API server it is for; nothing was sent`
    );
    expect((error as Error).message).not.toContain('sa-token');
    expect(authorizations).toEqual([]);
  });
});
