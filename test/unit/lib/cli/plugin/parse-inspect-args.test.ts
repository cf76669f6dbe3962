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
    [['get', '-o', 'json'], '--ds and -o apply to plan and explain only'],
  ])('refuses %j', (argv, problem) => {
    expect(problemOf(argv)).toBe(problem);
  });
});
