/**
 * The fleet CLI's help and usage errors: `--help` prints the overview,
 * `apply --help` and `help apply` only apply's usage; a bad command line
 * exits 2 with its problems, one line each, and where the right help is.
 */
import { describe, expect, it } from 'vitest';
import { FLEET_VERBS } from '#lib/cli/fleet/fleet-command.js';
import { parseFleetArgs } from '#lib/cli/fleet/parse-fleet-args.js';
import { runFleetCli } from '#lib/cli/fleet/run-fleet-cli.js';

/** Runs the CLI with no store: a command line that needs one fails. */
const cli = (...argv: string[]) =>
  runFleetCli(argv, {}, () => {
    throw new Error('no store in this test');
  });

/** Runs the CLI on the table `state`. */
const onTable = (...argv: string[]) => cli('--table', 'state', ...argv);

describe('fleet CLI help', () => {
  it('prints the overview on --help, -h and help, every verb in it', async () => {
    // Act
    const outs = await Promise.all([cli('--help'), cli('-h'), cli('help')]);

    // Assess
    for (const out of outs) expect(out).toEqual(outs[0]);
    const [help] = outs;
    expect(help?.exitCode).toBe(0);
    expect(help?.stdout.split('\n')[0]).toBe(
      'usage: npx dsr fleet <verb> [NAME] [options]'
    );
    for (const verb of FLEET_VERBS) {
      expect(help?.stdout).toMatch(new RegExp(`\\n  ${verb} `));
    }
    expect(help?.stdout).toContain('\noptions of every verb:\n');
  });

  it.each(FLEET_VERBS.map((verb) => [verb]))(
    'prints only %s’s usage on `VERB --help` and `help VERB`',
    async (verb) => {
      // Act
      const flag = await cli(verb, '--help');
      const topic = await cli('help', verb);

      // Assess
      expect(flag).toEqual(topic);
      expect(flag.exitCode).toBe(0);
      expect(flag.stdout.split('\n')[0]).toMatch(
        new RegExp(`^usage: npx dsr fleet ${verb}\\b`)
      );
      expect(flag.stdout.match(/usage: /g)).toHaveLength(1);
    }
  );

  it('shows --dry-run in apply’s usage and --force in delete’s only', async () => {
    // Act
    const apply = await cli('apply', '--help');
    const remove = await cli('delete', '--help');

    // Assess
    expect(apply.stdout).toContain('\n  --dry-run ');
    expect(apply.stdout).not.toContain('--force');
    expect(remove.stdout).toContain('\n  --force ');
    expect(remove.stdout).not.toContain('--dry-run');
  });
});

describe('fleet CLI usage errors', () => {
  it.each([
    { argv: [], problem: 'give a verb: apply, list, status' },
    { argv: ['rollout'], problem: 'unknown verb "rollout": use apply' },
    { argv: ['status'], problem: 'status needs NAME' },
    { argv: ['approve', 'node-agent'], problem: 'approve needs NAME WAVE' },
    { argv: ['pause', 'a', 'b'], problem: 'unexpected argument(s): b' },
    { argv: ['apply'], problem: 'apply needs -f FILE' },
    {
      argv: ['pause', 'a', '--force'],
      problem: '--force does not apply to pause',
    },
    {
      argv: ['list', '--dry-run'],
      problem: '--dry-run does not apply to list',
    },
    {
      argv: ['list', '-o', 'wide'],
      problem: 'unknown output format "wide": use json or yaml',
    },
    { argv: ['list', '--tabel', 'x'], problem: 'unknown option --tabel' },
  ])('exits 2 on $argv', async ({ argv, problem }) => {
    // Act
    const out = await onTable(...argv);

    // Assess
    expect(out.exitCode).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(`error: ${problem}`);
    expect(out.stderr).toMatch(/\nSee 'npx dsr fleet (\w+ )?--help'\.\n$/);
  });

  it('points at the verb’s help', async () => {
    // Act
    const out = await onTable('delete');

    // Assess
    expect(out.stderr).toBe(
      "error: delete needs NAME\nSee 'npx dsr fleet delete --help'.\n"
    );
  });

  it('needs a table', async () => {
    // Act
    const out = await cli('list');

    // Assess
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toContain(
      'error: give --table NAME (or TABLE_NAME) or --stage NAME'
    );
  });

  it('prints the problems as a document with -o json', async () => {
    // Act
    const out = await onTable('status', '-o', 'json');

    // Assess
    expect(out.exitCode).toBe(2);
    expect(JSON.parse(out.stderr)).toEqual({
      error: 'status needs NAME',
      problems: ['status needs NAME'],
      help: 'npx dsr fleet status --help',
    });
  });

  it('takes the table and region from the environment', () => {
    // Act
    const command = parseFleetArgs(
      ['approve', 'node-agent', 'rest', '-o', 'yaml'],
      { TABLE_NAME: 'dsr-prod-state', AWS_REGION: 'eu-west-1' }
    );

    // Assess
    expect(command).toEqual({
      verb: 'approve',
      name: 'node-agent',
      wave: 'rest',
      output: 'yaml',
      target: { tableName: 'dsr-prod-state', region: 'eu-west-1' },
    });
  });

  it('reads --stage through the stack outputs', async () => {
    // Act
    const out = await cli('list', '--stage', 'prod');

    // Assess: no CloudFormation access in this run.
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toContain('--stage cannot be resolved here');
  });
});
