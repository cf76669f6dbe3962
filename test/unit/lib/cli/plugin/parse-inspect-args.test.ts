import { describe, expect, it } from 'vitest';
import { CliUsageError } from '#lib/cli/cli-usage-error.js';
import { parsePluginArgs } from '#lib/cli/plugin/parse-plugin-args.js';

const problemOf = (argv: string[]): string => {
  try {
    parsePluginArgs(argv);
  } catch (e) {
    if (e instanceof CliUsageError) return e.problems.join('; ');
  }
  return 'no error';
};

describe('kubectl dsr plan / explain command lines', () => {
  it.each([
    [
      ['plan', 'kube-system/agent'],
      { namespace: 'kube-system', name: 'agent' },
    ],
    [['plan', 'ds/agent'], { kind: 'apps/v1', name: 'agent' }],
    [['plan', 'advds/agent'], { kind: 'apps.dsr.dev/v1beta1', name: 'agent' }],
    [['plan', 'DaemonSets.apps/agent'], { kind: 'apps/v1', name: 'agent' }],
    [['plan', 'agent'], { name: 'agent' }],
  ])('reads the target of %j', (argv, target) => {
    expect(parsePluginArgs(argv)).toEqual({
      verb: 'plan',
      target,
      output: 'text',
    });
  });

  it('reads explain with --ds, -o and kubectl flags', () => {
    expect(
      parsePluginArgs([
        'explain',
        'node',
        'gpu-1',
        '--ds',
        'advds/agent',
        '-o',
        'yaml',
        '-n',
        'ops',
        '--context',
        'prod',
      ])
    ).toEqual({
      verb: 'explain',
      node: 'gpu-1',
      target: { kind: 'apps.dsr.dev/v1beta1', name: 'agent' },
      output: 'yaml',
      namespace: 'ops',
      context: 'prod',
    });
  });

  it('reads where the state is: --cluster with --stage and --region, or --table and --endpoint', () => {
    expect(
      parsePluginArgs([
        'plan',
        'ns/a',
        '--cluster',
        'prod',
        '--stage',
        'prod',
        '--region',
        'eu-west-1',
      ])
    ).toMatchObject({
      state: {
        cluster: 'prod',
        locator: { stage: 'prod', region: 'eu-west-1' },
      },
    });
    expect(
      parsePluginArgs([
        'explain',
        'node',
        'n',
        '--ds',
        'ns/a',
        '--cluster',
        'local',
        '--table',
        't',
        '--endpoint',
        'http://127.0.0.1:8000',
      ])
    ).toMatchObject({
      state: {
        cluster: 'local',
        locator: { tableName: 't', endpoint: 'http://127.0.0.1:8000' },
      },
    });
  });

  it.each([
    [
      ['plan', 'ns/a', '--table', 't'],
      '--cluster ID is needed with --table or --stage: the id the cluster is registered under',
    ],
    [
      ['plan', 'ns/a', '--cluster', 'c', '--region', 'r'],
      '--cluster needs --table NAME or --stage NAME: where the reconcilers keep their state',
    ],
    [
      ['plan', 'ns/a', '--cluster', 'c', '--stage', 's', '--table', 't'],
      'give --table or --stage, not both',
    ],
    [
      ['rollout', 'status', 'advds/a', '--stage', 's'],
      '--ds, -o, --cluster, --table, --stage, --region and --endpoint apply to plan and explain only',
    ],
  ])('refuses an incomplete state source %j', (argv, problem) => {
    expect(problemOf(argv)).toBe(problem);
  });

  it.each([
    [['plan'], 'plan needs a DaemonSet: plan NAMESPACE/NAME'],
    [
      ['plan', 'a/b/c'],
      '"a/b/c" is not a DaemonSet: use ds/NAME, advds/NAME, NAMESPACE/NAME or NAME',
    ],
    [
      ['plan', 'ns/'],
      '"ns/" is not a DaemonSet: use ds/NAME, advds/NAME, NAMESPACE/NAME or NAME',
    ],
    [['plan', 'ns/a', 'extra'], 'unexpected argument(s): extra'],
    [['plan', 'ns/a', '--ds', 'x'], 'unexpected argument(s): --ds'],
    [
      ['plan', 'ns/a', '-o', 'wide'],
      'unknown output format "wide": use json or yaml',
    ],
    [
      ['explain', 'pod', 'x', '--ds', 'a'],
      'explain takes: explain node NODE --ds NAMESPACE/NAME',
    ],
    [
      ['explain', 'node'],
      'explain takes: explain node NODE --ds NAMESPACE/NAME',
    ],
    [
      ['explain', 'node', 'n1'],
      'explain needs the DaemonSet: --ds NAMESPACE/NAME',
    ],
    [
      ['get', '--ds', 'x'],
      '--ds, -o, --cluster, --table, --stage, --region and --endpoint apply to plan and explain only',
    ],
  ])('refuses %j', (argv, problem) => {
    expect(problemOf(argv)).toBe(problem);
  });
});
