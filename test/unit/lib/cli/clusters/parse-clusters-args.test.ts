import { describe, expect, it } from 'vitest';
import { CliUsageError } from '#lib/cli/cli-usage-error.js';
import { parseClustersArgs } from '#lib/cli/clusters/parse-clusters-args.js';

/** Returns the problems `argv` is refused with (fails when it is accepted). */
const problemsOf = (
  argv: string[],
  env: Record<string, string> = {}
): readonly string[] => {
  try {
    parseClustersArgs(argv, env);
  } catch (e) {
    expect(e).toBeInstanceOf(CliUsageError);
    return (e as CliUsageError).problems;
  }
  throw new Error(`expected ${argv.join(' ')} to be refused`);
};

describe('parseClustersArgs', () => {
  describe('when the command line is valid', () => {
    it('reads the table, region and endpoint of list', () => {
      // Act
      const command = parseClustersArgs(
        [
          'list',
          '--table',
          'state',
          '--region',
          'eu-west-1',
          '--endpoint',
          'http://127.0.0.1:8000',
          '--json',
        ],
        {}
      );
      // Assess
      expect(command).toEqual({
        name: 'list',
        output: 'json',
        noHeaders: false,
        target: {
          tableName: 'state',
          region: 'eu-west-1',
          endpoint: 'http://127.0.0.1:8000',
        },
      });
    });

    it('takes the table and region from TABLE_NAME and AWS_REGION', () => {
      // Act
      const command = parseClustersArgs(['list'], {
        TABLE_NAME: 'from-env',
        AWS_REGION: 'us-east-1',
      });
      // Assess
      expect(command).toEqual({
        name: 'list',
        output: 'text',
        noHeaders: false,
        target: { tableName: 'from-env', region: 'us-east-1' },
      });
    });

    it('prefers --table and --region over the environment', () => {
      // Act
      const command = parseClustersArgs(
        ['list', '--table', 'flag', '--region', 'eu-central-1'],
        { TABLE_NAME: 'env', AWS_REGION: 'us-east-1' }
      );
      // Assess
      expect(command).toMatchObject({
        target: { tableName: 'flag', region: 'eu-central-1' },
      });
    });

    it('collects the options of add, with watch mode by default', () => {
      // Act
      const command = parseClustersArgs(
        [
          'add',
          '--table=t',
          '--id',
          'prod',
          '--eks-cluster',
          'prod-eks',
          '--eks-region',
          'eu-west-1',
          '--role-arn',
          'arn:aws:iam::123456789012:role/dsr-cluster-prod',
          '--server',
          'https://example.eks.amazonaws.com',
          '--ca-file',
          'ca.pem',
        ],
        {}
      );
      // Assess
      expect(command).toEqual({
        name: 'add',
        output: 'text',
        target: { tableName: 't' },
        add: {
          id: 'prod',
          eksCluster: 'prod-eks',
          eksRegion: 'eu-west-1',
          roleArn: 'arn:aws:iam::123456789012:role/dsr-cluster-prod',
          server: 'https://example.eks.amazonaws.com',
          caFile: 'ca.pem',
          mode: 'watch',
          replace: false,
          skipCheck: false,
        },
        timeoutMs: 5_000,
      });
    });

    it('takes --skip-check and a --timeout for the ownership question of add', () => {
      // Act
      const command = parseClustersArgs(
        [
          'add',
          '--table=t',
          '--id',
          'x',
          '--kubeconfig',
          'k',
          '--endpoint',
          'http://127.0.0.1:8000',
          '--skip-check',
          '--timeout',
          '2',
        ],
        {}
      );
      // Assess
      expect(command).toMatchObject({
        name: 'add',
        add: { skipCheck: true },
        timeoutMs: 2_000,
      });
      expect(() =>
        parseClustersArgs(
          [
            'add',
            '--table=t',
            '--id',
            'x',
            '--kubeconfig',
            'k',
            '--endpoint',
            'http://127.0.0.1:8000',
            '--timeout',
            '0',
          ],
          {}
        )
      ).toThrow('--timeout must be a number of seconds in (0, 60]');
    });

    it.each([
      {
        name: 'economy mode and --replace',
        extra: ['--mode', 'economy', '--replace'],
        mode: 'economy',
        replace: true,
      },
      {
        name: 'watch mode',
        extra: ['--mode', 'watch'],
        mode: 'watch',
        replace: false,
      },
    ])('reads $name', ({ extra, mode, replace }) => {
      // Act
      const command = parseClustersArgs(
        [
          'add',
          '--table',
          't',
          '--id',
          'x',
          '--kubeconfig',
          'k',
          '--endpoint',
          'http://127.0.0.1:8000',
          ...extra,
        ],
        {}
      );
      // Assess
      expect(command).toMatchObject({ add: { mode, replace } });
    });

    it.each([
      {
        name: 'one cluster',
        argv: ['--id', 'prod'],
        id: 'prod',
        timeoutMs: 5_000,
      },
      { name: 'every cluster', argv: [], id: undefined, timeoutMs: 5_000 },
      {
        name: 'a timeout',
        argv: ['--timeout', '2.5'],
        id: undefined,
        timeoutMs: 2_500,
      },
    ])('reads check of $name', ({ argv, id, timeoutMs }) => {
      // Act
      const command = parseClustersArgs(['check', '--table', 't', ...argv], {});
      // Assess
      expect(command).toEqual({
        name: 'check',
        output: 'text',
        target: { tableName: 't' },
        id,
        timeoutMs,
      });
    });

    it('reads remove', () => {
      // Act
      const command = parseClustersArgs(
        ['remove', '--id', 'prod', '--table', 't'],
        {}
      );
      // Assess
      expect(command).toEqual({
        name: 'remove',
        output: 'text',
        target: { tableName: 't' },
        id: 'prod',
      });
    });

    it.each([[['--help']], [['-h']], [['help']]])(
      'asks for the overview with %j',
      (argv) => {
        // Act
        const command = parseClustersArgs(argv, {});
        // Assess
        expect(command).toEqual({ name: 'help' });
      }
    );

    it.each([
      [['add', '--help']],
      [['add', '-h', '--id', 'x']],
      [['help', 'add']],
    ])("asks for add's own help with %j", (argv) => {
      // Act
      const command = parseClustersArgs(argv, {});
      // Assess
      expect(command).toEqual({ name: 'help', topic: 'add' });
    });
  });

  describe('when the command line is wrong', () => {
    it.each([
      { name: 'no command', argv: [], problem: /give a command/ },
      {
        name: 'an unknown command',
        argv: ['delete'],
        problem: /unknown command "delete"/,
      },
      {
        name: 'an unknown option',
        argv: ['list', '--tabel', 't'],
        problem: /--tabel/,
      },
      {
        name: 'an option without its value',
        argv: ['list', '--table'],
        problem: /--table/,
      },
      {
        name: 'an option of another command',
        argv: ['list', '--table', 't', '--server', 'https://x'],
        problem: /^--server does not apply to list$/,
      },
      {
        name: 'no table',
        argv: ['list'],
        problem: /^give --table NAME \(or TABLE_NAME\) or --stage NAME$/,
      },
      {
        name: 'add without --id',
        argv: [
          'add',
          '--table',
          't',
          '--kubeconfig',
          'k',
          '--endpoint',
          'http://127.0.0.1:8000',
        ],
        problem: /^add needs --id ID$/,
      },
      {
        name: 'remove without --id',
        argv: ['remove', '--table', 't'],
        problem: /^remove needs --id ID$/,
      },
      {
        name: 'an unknown mode',
        argv: ['add', '--table', 't', '--id', 'x', '--mode', 'fast'],
        problem: /^--mode must be watch or economy$/,
      },
      {
        name: 'a zero timeout',
        argv: ['check', '--table', 't', '--timeout', '0'],
        problem: /^--timeout must be/,
      },
      {
        name: 'a timeout that is no number',
        argv: ['check', '--table', 't', '--timeout', 'soon'],
        problem: /^--timeout must be/,
      },
      {
        name: 'an endpoint that is no URL',
        argv: ['list', '--table', 't', '--endpoint', 'localhost:8000'],
        problem: /^--endpoint must be an http\(s\) URL/,
      },
      {
        name: 'a stray argument',
        argv: ['list', 'prod', '--table', 't'],
        problem: /^unexpected argument\(s\): prod$/,
      },
    ])('refuses $name', ({ argv, problem }) => {
      // Act
      const problems = problemsOf(argv);
      // Assess
      expect(problems).toEqual([expect.stringMatching(problem)]);
    });

    it('lists every problem at once', () => {
      // Act
      const problems = problemsOf([
        'remove',
        '--server',
        'https://x',
        '--mode',
        'fast',
      ]);
      // Assess
      expect(problems).toEqual([
        '--server does not apply to remove',
        '--mode does not apply to remove',
        'give --table NAME (or TABLE_NAME) or --stage NAME',
        'remove needs --id ID',
      ]);
    });
  });
});
