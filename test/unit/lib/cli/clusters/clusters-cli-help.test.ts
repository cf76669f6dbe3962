/**
 * The clusters CLI's help and usage errors: `--help` prints the overview,
 * `add --help` and `help add` only add's usage; a bad command line prints
 * its problems, one line each, and where the right help is, never the
 * whole usage or node:util parseArgs' own messages.
 */
import { describe, expect, it } from 'vitest';
import { runClustersCli } from '#lib/cli/clusters/run-clusters-cli.js';

/** Runs the CLI with no registry: a command line that needs one fails. */
const cli = (...argv: string[]) =>
  runClustersCli(argv, {}, () => {
    throw new Error('no registry in this test');
  });

describe('clusters CLI help', () => {
  it('prints the overview on --help, -h and help, every command in a line', async () => {
    // Act
    const outs = await Promise.all([cli('--help'), cli('-h'), cli('help')]);
    // Assess
    for (const out of outs) expect(out).toEqual(outs[0]);
    const [help] = outs;
    expect(help?.exitCode).toBe(0);
    expect(help?.stdout.split('\n').slice(0, 11)).toEqual([
      'usage: npx dsr clusters <command> [options]',
      '',
      'commands:',
      '  list      the registered clusters: status, API budget, last bridge run',
      '  add       registers a cluster, once it passes the checks of check',
      '  check     reachability, version, authentication, RBAC and ownership',
      "  remove    deletes a cluster's record, with its bookmarks and fence",
      '  unfence   lets the reconciler act again where it stopped for another',
      '            DaemonSet controller',
      "  label     sets or removes a cluster's registration labels",
      '',
    ]);
    expect(help?.stdout).toContain(
      "\n'npx dsr clusters <command> --help' shows a command's options.\n"
    );
    expect(help?.stdout).not.toContain('--skip-check');
  });

  it.each([
    ['add', 'usage: npx dsr clusters add --id ID AUTH [options]'],
    ['list', 'usage: npx dsr clusters list [-o wide|json|yaml] [--no-headers]'],
    ['check', 'usage: npx dsr clusters check [--id ID] [--timeout SECONDS]'],
    ['remove', 'usage: npx dsr clusters remove --id ID'],
    [
      'unfence',
      'usage: npx dsr clusters unfence --id ID [--daemonset NS/NAME]',
    ],
  ])(
    'prints only %s’s usage on `%s --help` and `help %s`',
    async (name, first) => {
      // Act
      const flag = await cli(name, '--help');
      const topic = await cli('help', name);
      // Assess
      expect(flag).toEqual(topic);
      expect(flag.exitCode).toBe(0);
      expect(flag.stdout.split('\n')[0]).toBe(first);
      expect(flag.stdout).toContain('\noptions of every command:\n');
      expect(flag.stdout.match(/usage: /g)).toHaveLength(1);
    }
  );

  it('shows the options of add, and of no other command, in add’s usage', async () => {
    // Act
    const { stdout } = await cli('add', '--help');
    // Assess
    expect(stdout).toContain(
      '\n  --skip-check          register without checking'
    );
    expect(stdout).toContain('(needs\n                        --endpoint)');
    expect(stdout).not.toContain('--daemonset');
    expect(stdout).not.toContain('--no-headers');
  });

  describe('usage errors', () => {
    it.each([
      {
        argv: [],
        stderr:
          "error: give a command: list, add, check, remove, unfence or label\nSee 'npx dsr clusters --help'.\n",
      },
      {
        argv: ['frobnicate'],
        stderr:
          'error: unknown command "frobnicate": use list, add, check, remove, unfence or label\n' +
          "See 'npx dsr clusters --help'.\n",
      },
      {
        argv: ['help', 'frobnicate'],
        stderr:
          'error: unknown command "frobnicate": use list, add, check, remove, unfence or label\n' +
          "See 'npx dsr clusters --help'.\n",
      },
      {
        argv: ['list'],
        stderr:
          "error: give --table NAME (or TABLE_NAME) or --stage NAME\nSee 'npx dsr clusters list --help'.\n",
      },
      {
        argv: ['list', '--table', 't', '--server', 'https://x'],
        stderr:
          "error: --server does not apply to list\nSee 'npx dsr clusters list --help'.\n",
      },
      {
        argv: ['list', '-o', 'json', '--tabel', 't'],
        stderr:
          '{\n  "error": "unknown option --tabel (did you mean --table?)",\n' +
          '  "problems": [\n    "unknown option --tabel (did you mean --table?)"\n  ],\n' +
          '  "help": "npx dsr clusters list --help"\n}\n',
      },
      {
        argv: ['check', '-x', '--table', 't'],
        stderr:
          "error: unknown option -x\nSee 'npx dsr clusters check --help'.\n",
      },
      {
        argv: ['add', '--table', '--id', 'x'],
        stderr:
          "error: --table needs a value\nSee 'npx dsr clusters add --help'.\n",
      },
      {
        argv: ['add', '--table', 't', '--id', 'x', '--api-burst', '-1'],
        stderr:
          'error: --api-burst needs a value; write --api-burst=-1 for one that starts with "-"\n' +
          "See 'npx dsr clusters add --help'.\n",
      },
      {
        argv: ['list', '--table', 't', '--json=yes'],
        stderr:
          "error: --json takes no value\nSee 'npx dsr clusters list --help'.\n",
      },
    ])(
      'prints $argv’s problem and where the help is, exit code 2',
      async ({ argv, stderr }) => {
        // Act
        const out = await cli(...argv);
        // Assess
        expect(out).toEqual({ exitCode: 2, stdout: '', stderr });
      }
    );
  });
});
