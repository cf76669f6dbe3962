/**
 * `kubectl dsr` help, version and command-line errors: every verb has its
 * own page (`VERB --help` and `-h`), a group alone prints its page on stderr
 * and exits 1 as kubectl's rollout does, and refusals are cobra's words.
 */
import { describe, expect, it } from 'vitest';
import type { PluginDeps } from '#lib/cli/plugin/plugin-deps.js';
import { VERBS } from '#lib/cli/plugin/plugin-verbs.js';
import { runPlugin } from '#lib/cli/plugin/run-plugin.js';
import { runKubectlDsr } from '../../../../../functions/kubectl-dsr.js';
import packageJson from '../../../../../package.json' with { type: 'json' };

const deps: PluginDeps = {
  open: () => {
    throw new Error('help and version open no cluster');
  },
  now: () => 0,
  sleep: async () => undefined,
  write: () => undefined,
  version: '1.2.3',
};
const dsr = (...argv: string[]) => runPlugin(argv, deps);

describe('kubectl dsr VERB --help', () => {
  it.each(VERBS.map((v) => [v.path.join(' ')]))(
    '%s has its own page, with --help and -h alike',
    async (verb) => {
      // Act
      const long = await dsr(...verb.split(' '), '--help');
      const short = await dsr(...verb.split(' '), 'advds/x', '-h');
      // Assess
      expect(long.exitCode).toBe(0);
      expect(long.stderr).toBe('');
      expect(long.stdout).toContain(`\nUsage:\n  kubectl dsr ${verb}`);
      expect(short).toEqual(long);
    }
  );

  it('gives each verb a different page, and the plugin a page of them all', async () => {
    // Act
    const pages = await Promise.all(
      VERBS.map(async (v) => (await dsr(...v.path, '--help')).stdout)
    );
    const top = await dsr('--help');
    // Assess
    expect(new Set(pages).size).toBe(VERBS.length);
    for (const v of VERBS) {
      expect(top.stdout).toContain(`\n  ${v.path.join(' ')} `);
    }
  });

  it('prints the page of version exactly', async () => {
    // Act
    const out = await dsr('help', 'version');
    // Assess
    expect(out).toEqual({
      exitCode: 0,
      stdout: [
        'Print the version of the plugin.',
        '',
        'Examples:',
        '  kubectl dsr version',
        '',
        'Global options:',
        "    --context='':",
        '\tThe kubeconfig context to use.',
        '',
        '    -h, --help=false:',
        '\tHelp for the verb.',
        '',
        "    --kubeconfig='':",
        '\tThe kubeconfig file (default: $KUBECONFIG, merged as kubectl merges it, or ~/.kube/config).',
        '',
        "    -n, --namespace='':",
        "\tThe namespace (default: the context's).",
        '',
        'Usage:',
        '  kubectl dsr version [options]',
        '',
        'Use "kubectl dsr --help" for the list of verbs.',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('prints a group named alone on stderr with exit code 1, as kubectl rollout', async () => {
    // Act
    const alone = await dsr('rollout');
    const asked = await dsr('set', '--help');
    // Assess
    expect(alone.exitCode).toBe(1);
    expect(alone.stdout).toBe('');
    expect(alone.stderr).toMatch(
      /^Manage the rollout of an AdvancedDaemonSet\.\n\nAvailable Commands:\n {2}status {4}Show the status/
    );
    expect(asked.exitCode).toBe(0);
    expect(asked.stdout).toContain('  image       Update the image');
  });
});

describe('kubectl dsr version', () => {
  it('prints the version it is given', async () => {
    // Act / Assess
    expect(await dsr('version')).toEqual({
      exitCode: 0,
      stdout: 'dsr version 1.2.3\n',
      stderr: '',
    });
  });

  it("prints the package's version from the command's entry (dsr version)", async () => {
    // Act
    const out = await runKubectlDsr(['version']);
    // Assess
    expect(out).toEqual({
      exitCode: 0,
      stdout: `dsr version ${packageJson.version}\n`,
      stderr: '',
    });
  });
});

describe('kubectl dsr command-line errors', () => {
  it.each([
    {
      argv: ['get', '--bogus'],
      line: 'error: unknown flag: --bogus',
    },
    {
      argv: ['get', '-x'],
      line: "error: unknown shorthand flag: 'x' in -x",
    },
    {
      argv: ['frobnicate'],
      line: 'error: unknown command "frobnicate" for "kubectl dsr"',
    },
    {
      argv: ['get', '-o', 'table'],
      line: 'error: unable to match a printer suitable for the output format "table", allowed formats are: json,yaml,wide,name',
    },
    {
      argv: ['get', '--watch=maybe'],
      line: 'error: invalid argument "maybe" for "-w, --watch" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    },
    {
      argv: ['get', '--kubeconfig'],
      line: 'error: flag needs an argument: --kubeconfig',
    },
    {
      argv: ['completion', 'fish'],
      line: 'error: Unsupported shell type "fish".',
    },
    {
      argv: ['set', 'image', 'advds/x'],
      line: 'error: at least one image update is required',
    },
    {
      argv: ['set', 'image', 'advds/x', 'agent'],
      line: 'error: invalid image update "agent": use CONTAINER=IMAGE',
    },
    {
      argv: ['version', '--dry-run=client'],
      line: 'error: unknown flag: --dry-run',
    },
  ])('refuses $argv with exit code 1', async ({ argv, line }) => {
    // Act / Assess
    expect(await dsr(...argv)).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `${line}\nSee 'kubectl dsr --help' for usage.\n`,
    });
  });
});
