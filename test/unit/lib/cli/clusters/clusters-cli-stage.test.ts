/**
 * `--stage NAME`: the clusters CLI finds the state table in the outputs of
 * the stage's stack (`<service>-<stage>`, output StateTableName), read
 * through the StackOutputs port (faked here); a missing stack or output is
 * a clear failure, and `--stage` with `--table` a usage error.
 */
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ClustersCliDeps } from '#lib/cli/clusters/clusters-commands.js';
import { runClustersCli } from '#lib/cli/clusters/run-clusters-cli.js';
import type { TableTarget } from '#lib/cli/parse-table-locator.js';
import {
  SERVICE_NAME,
  STATE_TABLE_OUTPUT,
  type StackOutputsFor,
} from '#lib/cli/stack-table.js';
import {
  type ClustersCliBed,
  createClustersCliBed,
} from '#test/helpers/clusters-cli-bed.js';
import { MemoryClusterRegistry } from '#test/helpers/fakes/memory-cluster-registry.js';
import { selfSignedPem } from '#test/helpers/self-signed-pem.js';

const STACK = 'serverless-daemonset-reconciler-prod';
const TABLE = 'serverless-daemonset-reconciler-prod-StateTable-1A2B3C';
const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:dsr/prod';

describe('clusters CLI --stage', () => {
  let bed: ClustersCliBed;
  /** The stacks the fake knows, by region and name. */
  let stacks: Record<string, Record<string, Record<string, string>>>;
  /** What the CLI asked: `region stack`. */
  let asked: string[];
  /** The tables the CLI opened. */
  let opened: TableTarget[];
  const stackOutputsFor: StackOutputsFor = (region) => ({
    outputsOf: async (stackName) => {
      asked.push(`${region} ${stackName}`);
      return stacks[region ?? 'default']?.[stackName];
    },
  });
  const cli = (argv: string[], env: Record<string, string> = {}) =>
    runClustersCli(
      argv,
      env,
      (table): ClustersCliDeps => {
        opened.push(table);
        return bed.deps;
      },
      stackOutputsFor
    );

  beforeEach(() => {
    bed = createClustersCliBed();
    stacks = {
      'eu-west-1': { [STACK]: { [STATE_TABLE_OUTPUT]: TABLE, Other: 'x' } },
    };
    asked = [];
    opened = [];
  });

  it('lists the registry in the table the stage’s stack names, in its region', async () => {
    // Act
    const listed = await cli([
      'list',
      '--stage',
      'prod',
      '--region',
      'eu-west-1',
    ]);
    const fromEnv = await cli(['list', '--stage', 'prod'], {
      AWS_REGION: 'eu-west-1',
      TABLE_NAME: 'ignored-for-stage',
    });
    // Assess
    expect(listed).toEqual({
      exitCode: 0,
      stdout: 'no clusters registered\n',
      stderr: '',
    });
    expect(fromEnv).toEqual(listed);
    expect(asked).toEqual([`eu-west-1 ${STACK}`, `eu-west-1 ${STACK}`]);
    expect(opened).toEqual([
      { tableName: TABLE, region: 'eu-west-1' },
      { tableName: TABLE, region: 'eu-west-1' },
    ]);
  });

  it('names the stage again in add’s next step', async () => {
    // Act
    const added = await cli([
      'add',
      '--stage',
      'prod',
      '--region',
      'eu-west-1',
      '--id',
      'prod',
      '--secret-arn',
      SECRET,
      '--server',
      'https://prod.example',
      '--ca-data',
      Buffer.from(selfSignedPem()).toString('base64'),
      '--skip-check',
    ]);
    // Assess
    expect(added.stdout).toBe(
      `added cluster prod: https://prod.example, watch mode, auth secret ${SECRET}\nnext: npx dsr clusters check --id prod --stage prod --region eu-west-1\n`
    );
  });

  it.each([
    {
      name: 'a stack that does not exist in the region',
      argv: ['--stage', 'prod', '--region', 'us-east-1'],
      error: `stack ${STACK} not found in us-east-1: is stage prod deployed in this account and region? (or give --table)`,
    },
    {
      name: 'a stack in no region given',
      argv: ['--stage', 'prod'],
      error: `stack ${STACK} not found in the SDK's default region: is stage prod deployed in this account and region? (or give --table)`,
    },
    {
      name: 'a stack without the output',
      argv: ['--stage', 'old', '--region', 'eu-west-1'],
      error:
        'stack serverless-daemonset-reconciler-old has no output StateTableName: deploy it again with this version (infra/resources/outputs.yml), or give --table',
    },
  ])(
    'fails for $name, exit code 1, opening no table',
    async ({ argv, error }) => {
      // Prepare
      stacks['eu-west-1'] = {
        ...stacks['eu-west-1'],
        'serverless-daemonset-reconciler-old': { Other: 'x' },
      };
      // Act
      const text = await cli(['list', ...argv]);
      const json = await cli(['list', ...argv, '-o', 'json']);
      // Assess
      expect(text).toEqual({
        exitCode: 1,
        stdout: '',
        stderr: `error: ${error}\n`,
      });
      expect(json.exitCode).toBe(1);
      expect(JSON.parse(json.stderr)).toEqual({ error });
      expect(opened).toEqual([]);
    }
  );

  it.each([
    {
      argv: ['list', '--stage', 'prod', '--table', 't'],
      line: 'error: give --table or --stage, not both',
    },
    {
      argv: ['list', '--stage', 'prod', '--endpoint', 'http://127.0.0.1:8000'],
      line: "error: --stage reads a deployed stack's table; it does not go with --endpoint",
    },
    {
      argv: ['list', '--stage', 'prod eu'],
      line: 'error: --stage must be letters, digits and dashes, not "prod eu"',
    },
    {
      argv: ['add', '--stage', 'prod', '--id', 'x', '--kubeconfig', 'k'],
      line: 'error: --kubeconfig registers a file on this machine, which the deployed functions cannot read: it needs --endpoint (DynamoDB Local); register a deployed cluster with --eks-cluster or --secret-arn',
    },
  ])('refuses $argv, exit code 2, asking nothing', async ({ argv, line }) => {
    // Act
    const out = await cli(argv);
    // Assess
    const command = argv[0] ?? '';
    expect(out).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: `${line}\nSee 'npx dsr clusters ${command} --help'.\n`,
    });
    expect(asked).toEqual([]);
  });

  it('fails clearly where no CloudFormation access is wired', async () => {
    // Act
    const out = await runClustersCli(['list', '--stage', 'prod'], {}, () => ({
      ...bed.deps,
      registry: new MemoryClusterRegistry(),
    }));
    // Assess
    expect(out).toEqual({
      exitCode: 1,
      stdout: '',
      stderr:
        'error: --stage cannot be resolved here (no CloudFormation access): give --table\n',
    });
  });

  it('names stacks as osls does, and reads the output the template declares', () => {
    // Prepare
    const serverless = readFileSync('serverless.yml', 'utf8');
    const outputs = readFileSync('infra/resources/outputs.yml', 'utf8');
    // Assess
    expect(/^service: (\S+)$/m.exec(serverless)?.[1]).toBe(SERVICE_NAME);
    expect(outputs).toMatch(
      new RegExp(
        `^ {2}${STATE_TABLE_OUTPUT}:\\n.*\\n {4}Value: !Ref StateTable$`,
        'm'
      )
    );
  });
});
