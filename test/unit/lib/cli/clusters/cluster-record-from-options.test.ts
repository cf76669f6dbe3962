import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliUsageError } from '#lib/cli/cli-usage-error.js';
import {
  clusterRecordFromOptions,
  type RecordSources,
} from '#lib/cli/clusters/cluster-record-from-options.js';
import type { AddOptions } from '#lib/cli/clusters/clusters-command.js';
import { selfSignedPem } from '../../../../helpers/self-signed-pem.js';

const ROLE = 'arn:aws:iam::123456789012:role/dsr-cluster-prod';
const SECRET =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:dsr/prod-AbCdEf';

/** Sources that serve `files` and throw ENOENT for anything else. */
const sourcesOf = (
  files: Record<string, string>,
  region?: string
): RecordSources => ({
  readTextFile: (file) => {
    const text = files[file];
    if (text === undefined) {
      throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
    }
    return text;
  },
  ...(region !== undefined && { region }),
});

/** Returns the problems the options are refused with. */
const problemsOf = (
  options: AddOptions,
  sources: RecordSources
): readonly string[] => {
  try {
    clusterRecordFromOptions(options, sources);
  } catch (e) {
    expect(e).toBeInstanceOf(CliUsageError);
    return (e as CliUsageError).problems;
  }
  throw new Error('expected the options to be refused');
};

describe('clusterRecordFromOptions', () => {
  let dir: string;
  let pem: string;
  let files: Record<string, string>;
  const eks = (over: Partial<AddOptions> = {}): AddOptions => ({
    id: 'prod',
    eksCluster: 'prod-eks',
    server: 'https://abc.gr7.eu-west-1.eks.amazonaws.com',
    caFile: 'ca.pem',
    mode: 'watch',
    replace: false,
    skipCheck: false,
    ...over,
  });

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dsr-cli-'));
    pem = selfSignedPem();
    files = {
      'ca.pem': pem,
      'not-a-cert.pem': 'hello',
      [path.resolve('kube/config')]: 'apiVersion: v1',
    };
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  describe('when the options are valid', () => {
    it('builds an EKS record with the CA file base64-encoded and the region of the deployment', () => {
      // Act
      const record = clusterRecordFromOptions(
        eks({ roleArn: ROLE }),
        sourcesOf(files, 'eu-west-1')
      );
      // Assess
      expect(record).toEqual({
        id: 'prod',
        endpoint: 'https://abc.gr7.eu-west-1.eks.amazonaws.com',
        caData: Buffer.from(pem).toString('base64'),
        auth: {
          type: 'eks',
          clusterName: 'prod-eks',
          region: 'eu-west-1',
          roleArn: ROLE,
        },
        ownership: 'apps/v1',
        bridgeMode: 'watch',
      });
    });

    it('prefers --eks-region over the deployment region', () => {
      // Act
      const record = clusterRecordFromOptions(
        eks({ eksRegion: 'ap-south-1' }),
        sourcesOf(files, 'eu-west-1')
      );
      // Assess
      expect(record.auth).toEqual({
        type: 'eks',
        clusterName: 'prod-eks',
        region: 'ap-south-1',
      });
    });

    it('builds a secret record from --ca-data, dropping line breaks', () => {
      // Prepare
      const b64 = Buffer.from(pem).toString('base64');
      const wrapped = b64.replace(/(.{64})/g, '$1\n');
      // Act
      const record = clusterRecordFromOptions(
        eks({
          eksCluster: undefined,
          caFile: undefined,
          caData: wrapped,
          secretArn: SECRET,
          mode: 'economy',
        }),
        sourcesOf(files, 'eu-west-1')
      );
      // Assess
      expect(record).toMatchObject({
        caData: b64,
        auth: { type: 'secret', secretArn: SECRET },
        bridgeMode: 'economy',
      });
    });

    it('builds a kubeconfig record with an absolute path and no server or CA', () => {
      // Act
      const record = clusterRecordFromOptions(
        {
          id: 'local',
          kubeconfig: 'kube/config',
          context: 'kind',
          skipCheck: false,
          mode: 'watch',
          replace: false,
        },
        sourcesOf(files)
      );
      // Assess
      expect(record).toEqual({
        id: 'local',
        endpoint: '',
        caData: '',
        auth: {
          type: 'kubeconfig',
          path: path.resolve('kube/config'),
          context: 'kind',
        },
        ownership: 'apps/v1',
        bridgeMode: 'watch',
      });
    });
  });

  describe('when the options are wrong', () => {
    it.each([
      {
        name: 'no auth',
        over: { eksCluster: undefined },
        problem:
          'give exactly one of --eks-cluster, --secret-arn, --kubeconfig',
      },
      {
        name: 'two auths',
        over: { secretArn: SECRET },
        problem:
          'give exactly one of --eks-cluster, --secret-arn, --kubeconfig',
      },
      {
        name: 'a role outside dsr-cluster-*',
        over: { roleArn: 'arn:aws:iam::123456789012:role/admin' },
        problem:
          /^--role-arn must name a role dsr-cluster-\*.*may only assume those roles/,
      },
      {
        name: 'a role with an IAM path',
        over: { roleArn: 'arn:aws:iam::123456789012:role/team/dsr-cluster-x' },
        problem: /^--role-arn must name a role dsr-cluster-\* without a path/,
      },
      {
        name: 'no server',
        over: { server: undefined },
        problem: '--server URL is required',
      },
      {
        name: 'no CA',
        over: { caFile: undefined },
        problem:
          'give exactly one of --ca-file PEM, --ca-data BASE64 (TLS is always verified)',
      },
      {
        name: 'two CAs',
        over: { caData: 'AAAA' },
        problem:
          'give exactly one of --ca-file PEM, --ca-data BASE64 (TLS is always verified)',
      },
      {
        name: 'a CA file that cannot be read',
        over: { caFile: 'missing.pem' },
        problem: '--ca-file missing.pem cannot be read (ENOENT)',
      },
      {
        name: '--context without --kubeconfig',
        over: { context: 'kind' },
        problem: '--context only goes with --kubeconfig',
      },
    ])('refuses $name', ({ over, problem }) => {
      // Act
      const problems = problemsOf(eks(over), sourcesOf(files, 'eu-west-1'));
      // Assess
      expect(problems).toEqual([
        typeof problem === 'string' ? problem : expect.stringMatching(problem),
      ]);
    });

    it.each([
      {
        name: 'a secret outside dsr/',
        secretArn:
          'arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod-AbCdEf',
        problem:
          /^--secret-arn must name a Secrets Manager secret under dsr\/.*may only read secrets dsr\/\*/,
      },
      {
        name: 'a secret of another region',
        secretArn:
          'arn:aws:secretsmanager:us-east-1:123456789012:secret:dsr/prod-AbCdEf',
        problem:
          /^--secret-arn names a secret in us-east-1, but the deployment is in eu-west-1/,
      },
    ])('refuses $name', ({ secretArn, problem }) => {
      // Act
      const problems = problemsOf(
        eks({ eksCluster: undefined, secretArn }),
        sourcesOf(files, 'eu-west-1')
      );
      // Assess
      expect(problems).toEqual([expect.stringMatching(problem)]);
    });

    it('refuses an EKS cluster without a region', () => {
      // Act
      const problems = problemsOf(eks(), sourcesOf(files));
      // Assess
      expect(problems).toEqual([
        '--eks-region R is required (or --region / AWS_REGION)',
      ]);
    });

    it('refuses --eks-region and --role-arn without --eks-cluster', () => {
      // Act
      const problems = problemsOf(
        eks({
          eksCluster: undefined,
          secretArn: SECRET,
          eksRegion: 'eu-west-1',
          roleArn: ROLE,
        }),
        sourcesOf(files, 'eu-west-1')
      );
      // Assess
      expect(problems).toEqual([
        '--eks-region only goes with --eks-cluster',
        '--role-arn only goes with --eks-cluster',
      ]);
    });

    it('refuses a server and CA beside --kubeconfig, and a file that cannot be read', () => {
      // Act
      const problems = problemsOf(
        eks({ eksCluster: undefined, kubeconfig: 'nowhere/config' }),
        sourcesOf(files)
      );
      // Assess
      expect(problems).toEqual([
        '--server, --ca-file and --ca-data do not go with --kubeconfig (the file names the server and its CA)',
        `--kubeconfig ${path.resolve('nowhere/config')} cannot be read (ENOENT)`,
      ]);
    });

    it('names the options of the fields the registry refuses', () => {
      // Act
      const problems = problemsOf(
        eks({
          id: 'Prod_EU',
          server: 'http://abc.example.com',
          caFile: 'not-a-cert.pem',
          eksCluster: '-bad',
        }),
        sourcesOf(files, 'eu-west-1')
      );
      // Assess
      expect(problems).toEqual([
        expect.stringMatching(/^--id must match /),
        '--eks-cluster must be an EKS cluster name',
        '--server must be an https URL with no path, query or user info',
        '--ca-file not-a-cert.pem must hold at least one PEM certificate',
      ]);
    });
  });
});
