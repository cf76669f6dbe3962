/**
 * parseClustersArgs on the options kubectl users expect: `-o` (`--output`,
 * with `--json` as `-o json`), `--no-headers`, and `--stage` in place of
 * `--table`.
 */
import { describe, expect, it } from 'vitest';
import { parseClustersArgs } from '#lib/cli/clusters/parse-clusters-args.js';

describe('parseClustersArgs output and stage options', () => {
  it.each([
    { argv: [], output: 'text' },
    { argv: ['--json'], output: 'json' },
    { argv: ['-o', 'json'], output: 'json' },
    { argv: ['-ojson', '--json'], output: 'json' },
    { argv: ['--output=yaml'], output: 'yaml' },
    { argv: ['-o', 'wide'], output: 'wide' },
  ])('reads $argv as output $output', ({ argv, output }) => {
    // Act
    const command = parseClustersArgs(['list', '--table', 't', ...argv], {});
    // Assess
    expect(command).toMatchObject({ name: 'list', output });
  });

  it('reads --no-headers of list', () => {
    // Act
    const command = parseClustersArgs(
      ['list', '--table', 't', '-o', 'wide', '--no-headers'],
      {}
    );
    // Assess
    expect(command).toEqual({
      name: 'list',
      output: 'wide',
      noHeaders: true,
      target: { tableName: 't' },
    });
  });

  it('reads --stage with its region, preferred over TABLE_NAME', () => {
    // Act
    const command = parseClustersArgs(['check', '--stage', 'prod'], {
      TABLE_NAME: 'from-env',
      AWS_REGION: 'eu-west-1',
    });
    // Assess
    expect(command).toEqual({
      name: 'check',
      output: 'text',
      target: { stage: 'prod', region: 'eu-west-1' },
      id: undefined,
      timeoutMs: 5_000,
    });
  });

  it('takes --kubeconfig with DynamoDB Local’s endpoint', () => {
    // Act
    const command = parseClustersArgs(
      [
        'add',
        '--table',
        't',
        '--endpoint',
        'http://localhost:8000',
        '--id',
        'x',
        '--kubeconfig',
        'k',
      ],
      {}
    );
    // Assess
    expect(command).toMatchObject({
      name: 'add',
      target: { tableName: 't', endpoint: 'http://localhost:8000' },
      add: { kubeconfig: 'k' },
    });
  });
});
