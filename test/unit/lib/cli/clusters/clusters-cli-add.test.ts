/**
 * `clusters add` checks the cluster as `check` does before it writes (a
 * failed check writes nothing and prints the report), unless --skip-check;
 * kubeconfig records go to DynamoDB Local only; `check` prints its verdict
 * last; unfence and remove refuse an id that is not registered.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReconcilerError } from '#lib/errors.js';
import {
  answering,
  type ClustersCliBed,
  createClustersCliBed,
  LOCAL_DYNAMODB,
} from '#test/helpers/clusters-cli-bed.js';
import { selfSignedPem } from '#test/helpers/self-signed-pem.js';

const KUBECONFIG_NEEDS_ENDPOINT =
  'error: --kubeconfig registers a file on this machine, which the deployed functions cannot read: it needs --endpoint (DynamoDB Local); register a deployed cluster with --eks-cluster or --secret-arn';

describe('clusters add, check, unfence and remove', () => {
  let bed: ClustersCliBed;
  let file: string;
  let connects: number;

  beforeEach(() => {
    bed = createClustersCliBed();
    file = bed.kubeconfig('https://10.0.0.1:6443');
    connects = 0;
    bed.deps.connect = async () => {
      connects++;
      throw new ReconcilerError('connect ECONNREFUSED 10.0.0.1:6443');
    };
  });

  afterEach(() => bed.cleanup());

  describe('add', () => {
    it('writes nothing for a cluster that fails its check, and prints the report, exit code 1', async () => {
      // Act
      const added = await bed.run('add', '--id', 'prod', '--kubeconfig', file);
      // Assess
      expect(added).toEqual({
        exitCode: 1,
        stdout: '',
        stderr: [
          'cluster prod (https://10.0.0.1:6443)',
          '  FAIL  cannot connect: connect ECONNREFUSED 10.0.0.1:6443',
          '  note  kubeconfig auth is for local runs only: the deployed functions cannot read this file',
          '  => FAILED',
          'error: cluster prod not registered: its check failed (--skip-check registers it anyway)',
          '',
        ].join('\n'),
      });
      expect((await bed.registry.list()).records).toEqual([]);
    });

    it('prints the failed check as JSON with -o json', async () => {
      // Act
      const added = await bed.run(
        'add',
        '--id',
        'prod',
        '--kubeconfig',
        file,
        '-o',
        'json'
      );
      // Assess
      expect(added.exitCode).toBe(1);
      expect(added.stdout).toBe('');
      expect(JSON.parse(added.stderr)).toMatchObject({
        error:
          'cluster prod not registered: its check failed (--skip-check registers it anyway)',
        check: {
          id: 'prod',
          ok: false,
          problems: ['cannot connect: connect ECONNREFUSED 10.0.0.1:6443'],
        },
      });
    });

    it('writes without connecting with --skip-check, and names the same table in its next step', async () => {
      // Act
      const added = await bed.run(
        'add',
        '--id',
        'prod',
        '--kubeconfig',
        file,
        '--skip-check'
      );
      // Assess
      expect(added).toEqual({
        exitCode: 0,
        stdout: `added cluster prod: https://10.0.0.1:6443, watch mode, auth kubeconfig ${file}\nnext: npx dsr clusters check --id prod --table state --endpoint ${LOCAL_DYNAMODB}\n`,
        stderr: '',
      });
      expect(connects).toBe(0);
      expect((await bed.registry.get('prod'))?.id).toBe('prod');
    });

    it('registers labels with --label, refused in kubectl’s words when malformed', async () => {
      // Act
      const added = await bed.run(
        'add',
        '--id',
        'prod',
        '--kubeconfig',
        file,
        '--skip-check',
        '--label',
        'tier=prod',
        '--label',
        'zone=eu-1'
      );
      const bad = await bed.run(
        'add',
        '--id',
        'dev',
        '--kubeconfig',
        file,
        '--skip-check',
        '--label',
        'tier'
      );
      const badKey = await bed.run(
        'add',
        '--id',
        'dev',
        '--kubeconfig',
        file,
        '--skip-check',
        '--label',
        'bad key=x'
      );
      // Assess
      expect(added.exitCode).toBe(0);
      expect((await bed.registry.get('prod'))?.labels).toEqual({
        tier: 'prod',
        zone: 'eu-1',
      });
      expect(bad).toMatchObject({
        exitCode: 2,
        stderr: expect.stringContaining(
          'error: --label must be key=value, not "tier"'
        ),
      });
      expect(badKey.exitCode).toBe(2);
      expect(badKey.stderr).toContain('labels.bad key');
      expect(await bed.registry.get('dev')).toBeUndefined();
    });

    it.each([
      { name: 'no --endpoint', extra: [] },
      {
        name: 'the endpoint of AWS DynamoDB',
        extra: ['--endpoint', 'https://dynamodb.eu-west-1.amazonaws.com'],
      },
    ])('refuses --kubeconfig with $name, exit code 2', async ({ extra }) => {
      // Act
      const added = await bed.runRaw([
        'add',
        '--table',
        'dsr-prod-state',
        '--id',
        'prod',
        '--kubeconfig',
        file,
        '--skip-check',
        ...extra,
      ]);
      // Assess
      expect(added).toEqual({
        exitCode: 2,
        stdout: '',
        stderr: `${KUBECONFIG_NEEDS_ENDPOINT}\nSee 'npx dsr clusters add --help'.\n`,
      });
      expect((await bed.registry.list()).records).toEqual([]);
    });
  });

  describe('check', () => {
    it('prints the breaker’s state before the verdict, which comes last', async () => {
      // Prepare
      bed.deps.connect = async () => ({
        probe: answering(),
        close: () => undefined,
      });
      await bed.run('add', '--id', 'prod', '--kubeconfig', file);
      await bed.health.recordFailure('prod', 'timed out', () => 60_000, 0);
      // Act
      const checked = await bed.run('check', '--id', 'prod');
      // Assess
      const lines = checked.stdout.trimEnd().split('\n');
      expect(checked.exitCode).toBe(0);
      expect(lines.at(-2)).toMatch(
        /^ {2}reconcilers saw 1 cluster-level failure\(s\), backed off until .*; last: timed out$/
      );
      expect(lines.at(-1)).toBe('  => OK');
    });
  });

  describe('label', () => {
    it('sets, overwrites only with --overwrite, and removes labels, as kubectl label', async () => {
      // Prepare
      await bed.run(
        'add',
        '--id',
        'prod',
        '--kubeconfig',
        file,
        '--skip-check',
        '--label',
        'tier=prod'
      );
      // Act
      const added = await bed.run('label', '--id', 'prod', 'wave=1');
      const refused = await bed.run('label', '--id', 'prod', 'tier=dev');
      const afterRefusal = (await bed.registry.get('prod'))?.labels;
      const overwritten = await bed.run(
        'label',
        '--id',
        'prod',
        'tier=dev',
        '--overwrite'
      );
      const removed = await bed.run('label', '--id', 'prod', 'wave-', 'gone-');
      const unknown = await bed.run('label', '--id', 'nope', 'a=b');
      // Assess
      expect(added).toEqual({
        exitCode: 0,
        stdout: 'cluster prod labeled\n',
        stderr: '',
      });
      expect(refused).toMatchObject({
        exitCode: 2,
        stderr: expect.stringContaining(
          "error: 'tier' already has a value (prod), and --overwrite is false"
        ),
      });
      expect(afterRefusal).toEqual({ tier: 'prod', wave: '1' });
      expect(overwritten.exitCode).toBe(0);
      expect(removed.stdout).toBe(
        'label "gone" not found.\ncluster prod labeled\n'
      );
      expect((await bed.registry.get('prod'))?.labels).toEqual({ tier: 'dev' });
      expect(unknown).toMatchObject({
        exitCode: 1,
        stderr: 'error: cluster nope is not registered\n',
      });
    });
  });

  describe('ids that are not registered', () => {
    it.each([
      {
        argv: ['unfence', '--id', 'prdo'],
        error: 'cluster prdo is not registered',
      },
      {
        argv: ['unfence', '--id', 'prdo', '--daemonset', 'kube-system/agent'],
        error: 'cluster prdo is not registered',
      },
      {
        argv: ['remove', '--id', 'prdo'],
        error: 'cluster prdo is not registered in state; nothing removed',
      },
    ])(
      'refuses $argv, exit code 1, in text and JSON',
      async ({ argv, error }) => {
        // Act
        const text = await bed.run(...argv);
        const json = await bed.run(...argv, '--json');
        // Assess
        expect(text).toEqual({
          exitCode: 1,
          stdout: '',
          stderr: `error: ${error}\n`,
        });
        expect(json.exitCode).toBe(1);
        expect(JSON.parse(json.stderr)).toEqual({ error });
      }
    );
  });
});

describe('clusters add --eks-cluster', () => {
  const CA = Buffer.from(selfSignedPem()).toString('base64');
  let bed: ClustersCliBed;
  const asked: unknown[] = [];

  beforeEach(() => {
    bed = createClustersCliBed();
    asked.length = 0;
    bed.deps.describeEksCluster = async (auth) => {
      asked.push(auth);
      return {
        endpoint: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com',
        caData: CA,
      };
    };
  });

  afterEach(() => bed.cleanup());

  it('asks EKS for the endpoint and CA when not given them, as --role-arn', async () => {
    // Act
    const added = await bed.runRaw([
      'add',
      '--table',
      'state',
      '--region',
      'eu-west-1',
      '--id',
      'prod',
      '--eks-cluster',
      'prod',
      '--role-arn',
      'arn:aws:iam::123456789012:role/dsr-cluster-prod',
      '-o',
      'json',
    ]);
    // Assess
    expect(added.stderr).toBe('');
    expect(asked).toEqual([
      {
        clusterName: 'prod',
        region: 'eu-west-1',
        roleArn: 'arn:aws:iam::123456789012:role/dsr-cluster-prod',
      },
    ]);
    const record = await bed.registry.get('prod');
    expect(record?.endpoint).toBe(
      'https://ABC.gr7.eu-west-1.eks.amazonaws.com'
    );
    expect(record?.caData).toBe(CA);
  });

  it('takes --server and a CA as given, without asking', async () => {
    // Act
    await bed.runRaw([
      'add',
      '--table',
      'state',
      '--region',
      'eu-west-1',
      '--id',
      'prod',
      '--eks-cluster',
      'prod',
      '--server',
      'https://10.1.2.3',
      '--ca-data',
      CA,
    ]);
    // Assess
    expect(asked).toEqual([]);
    expect((await bed.registry.get('prod'))?.endpoint).toBe('https://10.1.2.3');
  });

  it('forgets the bookmarks of the EKS cluster an id named before when --replace names another one at the same server', async () => {
    // Prepare
    const add = (eksCluster: string, ...extra: string[]) =>
      bed.runRaw([
        'add',
        '--table',
        'state',
        '--region',
        'eu-west-1',
        '--id',
        'prod',
        '--eks-cluster',
        eksCluster,
        '--server',
        'https://10.1.2.3',
        '--ca-data',
        CA,
        ...extra,
      ]);
    await add('blue');
    await bed.leases.acquire('prod', 'bridge', 60_000);
    await bed.leases.checkpoint('prod', 'bridge', { pods: '9000' }, 60_000);
    await bed.leases.release('prod', 'bridge');
    // Act
    const replaced = await add('green', '--replace');
    // Assess
    expect(replaced.exitCode).toBe(0);
    expect(await bed.leases.acquire('prod', 'next', 60_000)).toEqual({});
  });

  it('says what to give when EKS cannot be asked, exit code 2', async () => {
    // Prepare
    delete bed.deps.describeEksCluster;
    // Act
    const added = await bed.runRaw([
      'add',
      '--table',
      'state',
      '--region',
      'eu-west-1',
      '--id',
      'prod',
      '--eks-cluster',
      'prod',
    ]);
    // Assess
    expect(added.exitCode).toBe(2);
    expect(added.stderr).toBe(
      "error: --eks-cluster without --server and a CA needs EKS access: give --server and --ca-data\nSee 'npx dsr clusters add --help'.\n"
    );
  });
});
