/**
 * An EKS record's endpoint and CA must be what EKS reports (F14): a record
 * re-pointed in the table at another server is refused before any token
 * is minted or sent. Token caches follow what the record names now.
 */
import type { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterCredentialError } from '#lib/adapters/kube/cluster-credential.js';
import { ClusterConnector } from '#lib/adapters/kube/kube-cluster-connector.js';
import type { ClusterRecord } from '#lib/ports/index.js';
import { FakeClock } from '../../../../helpers/fakes/fake-clock.js';
import { FakeLogger } from '../../../../helpers/fakes/fake-logger.js';
import {
  type LoopbackApiServer,
  startLoopbackApiServer,
} from '../../../../helpers/loopback-api-server.js';
import { selfSignedPem } from '../../../../helpers/self-signed-pem.js';

const realCa = Buffer.from(selfSignedPem('eks')).toString('base64');
const attackerCa = Buffer.from(selfSignedPem('attacker')).toString('base64');
const REAL = 'https://ABCDEF.gr7.eu-west-1.eks.amazonaws.com';

const record = (endpoint: string, caData: string): ClusterRecord => ({
  id: 'prod',
  endpoint,
  caData,
  auth: { type: 'eks', clusterName: 'prod', region: 'eu-west-1' },
  ownership: 'apps/v1',
  bridgeMode: 'watch',
});

const connectorAsking = () => {
  const asked: string[] = [];
  const stsCalls: unknown[] = [];
  const connector = new ClusterConnector({
    sts: {
      send: async (c: unknown) => stsCalls.push(c),
    } as unknown as STSClient,
    eksTargets: {
      describe: async (auth, _id, fresh) => {
        asked.push(`${auth.clusterName}${fresh ? ' (fresh)' : ''}`);
        return { endpoint: `${REAL}/`, caData: realCa };
      },
    },
    clock: new FakeClock(),
    logger: new FakeLogger(),
  });
  return { connector, asked, stsCalls };
};

describe('ClusterConnector with EKS records', () => {
  it('refuses a record whose endpoint EKS does not report, before any token', async () => {
    // Prepare
    const { connector, asked, stsCalls } = connectorAsking();
    // Act
    const error = await connector
      .connect(record('https://attacker.example.com', realCa))
      .catch((e: unknown) => e);
    // Assess: the remembered answer, then a fresh one, both refuse it.
    expect(asked).toEqual(['prod', 'prod (fresh)']);
    expect(error).toBeInstanceOf(ClusterCredentialError);
    expect((error as Error).message).toContain(
      'the registered endpoint or CA differs from what EKS reports for prod'
    );
    expect(stsCalls).toEqual([]);
  });

  it('refuses a record whose CA EKS does not report', async () => {
    // Prepare
    const { connector } = connectorAsking();
    // Act
    const error = await connector
      .connect(record(REAL, attackerCa))
      .catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ClusterCredentialError);
  });

  it('connects to the cluster EKS reports', async () => {
    // Prepare
    const { connector } = connectorAsking();
    // Act
    const connection = await connector.connect(record(REAL, realCa));
    // Assess
    expect(connection.watch).toBeDefined();
    connection.close();
  });

  it('asks EKS afresh before refusing, so a cluster rebuilt within the hour connects', async () => {
    // Prepare: the remembered answer predates the rebuild.
    const answers = [
      { endpoint: 'https://OLD.eks.amazonaws.com', caData: realCa },
      { endpoint: REAL, caData: realCa },
    ];
    const connector = new ClusterConnector({
      sts: {} as STSClient,
      eksTargets: {
        describe: async () => answers.shift() ?? { endpoint: '', caData: '' },
      },
      clock: new FakeClock(),
      logger: new FakeLogger(),
    });
    // Act
    const connection = await connector.connect(record(REAL, realCa));
    // Assess
    expect(answers).toHaveLength(0);
    connection.close();
  });

  it('refuses EKS records when no EKS client was given', async () => {
    // Prepare
    const connector = new ClusterConnector({
      clock: new FakeClock(),
      logger: new FakeLogger(),
    });
    // Act / Assess
    await expect(connector.connect(record(REAL, realCa))).rejects.toThrow(
      'EKS clusters need STS and EKS clients'
    );
  });

  describe('token caches', () => {
    let api: LoopbackApiServer;
    let endpoint: string;
    let caData: string;

    beforeAll(async () => {
      api = await startLoopbackApiServer();
      ({ endpoint, caData } = api);
    });
    afterAll(() => api.close());

    /** A connector whose STS records each role it is asked to assume. */
    const assuming = () => {
      const assumed: string[] = [];
      const connector = new ClusterConnector({
        sts: {
          send: async (c: AssumeRoleCommand) => {
            assumed.push(`${c.input.RoleArn} as ${c.input.RoleSessionName}`);
            return {
              Credentials: {
                AccessKeyId: 'AKIA',
                SecretAccessKey: 'secret',
                Expiration: new Date(Date.now() + 3_600_000),
              },
            };
          },
        } as unknown as STSClient,
        eksTargets: { describe: async () => ({ endpoint, caData }) },
        clock: new FakeClock(),
        logger: new FakeLogger(),
      });
      return { connector, assumed };
    };
    const eksRecord = (clusterName: string): ClusterRecord => ({
      ...record(endpoint, caData),
      auth: {
        type: 'eks',
        clusterName,
        region: 'eu-west-1',
        roleArn: `arn:aws:iam::123456789012:role/dsr-cluster-${clusterName}`,
      },
    });
    const probe = async (connector: ClusterConnector, r: ClusterRecord) => {
      const connection = await connector.connect(r);
      await connection.probe.version();
      connection.close();
    };

    it('mints for the cluster and role the record names now, after the id was re-registered elsewhere', async () => {
      // Prepare
      const { connector, assumed } = assuming();
      await probe(connector, eksRecord('old'));
      // Act
      await probe(connector, eksRecord('new'));
      // Assess
      expect(assumed).toEqual([
        'arn:aws:iam::123456789012:role/dsr-cluster-old as dsr-old',
        'arn:aws:iam::123456789012:role/dsr-cluster-new as dsr-new',
      ]);
    });

    it('keeps one token per cluster and role, and mints afresh once the credential is forgotten', async () => {
      // Prepare
      const { connector, assumed } = assuming();
      await probe(connector, eksRecord('prod'));
      await probe(connector, eksRecord('prod'));
      // Act
      connector.forgetCredential(eksRecord('prod'));
      await probe(connector, eksRecord('prod'));
      // Assess
      expect(assumed).toHaveLength(2);
    });
  });
});
