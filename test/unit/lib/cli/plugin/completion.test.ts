/**
 * `kubectl dsr completion bash|zsh`: the scripts, run by a real bash —
 * as kubectl's plugin completer (`kubectl_complete-dsr WORDS… CURRENT`,
 * candidates then `:4`) and sourced, filling COMPREPLY.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PluginDeps } from '#lib/cli/plugin/plugin-deps.js';
import { runPlugin } from '#lib/cli/plugin/run-plugin.js';

const run = promisify(execFile);
const deps: PluginDeps = {
  open: () => {
    throw new Error('completion opens no cluster');
  },
  now: () => 0,
  sleep: async () => undefined,
  write: () => undefined,
};

describe('kubectl dsr completion', () => {
  let script: string;
  beforeAll(async () => {
    const out = await runPlugin(['completion', 'bash'], deps);
    expect(out).toMatchObject({ exitCode: 0, stderr: '' });
    script = path.join(await mkdtemp(path.join(tmpdir(), 'dsr-')), 'c.bash');
    await writeFile(script, out.stdout, { mode: 0o755 });
  });

  it.each([
    { words: ['rollout', 'st'], out: 'status\n:4\n' },
    { words: ['set', ''], out: 'partition\nimage\n:4\n' },
    { words: ['-n', 'kube-system', 'ex'], out: 'explain\n:4\n' },
    { words: ['completion', ''], out: 'bash\nzsh\n:4\n' },
    {
      words: ['get', '-'],
      out: '--output\n-o\n--selector\n-l\n--watch\n-w\n--all-namespaces\n-A\n--namespace\n-n\n--kubeconfig\n--context\n--help\n-h\n:4\n',
    },
    { words: ['set', 'image', 'advds/x', '--d'], out: '--dry-run\n:4\n' },
  ])('as kubectl_complete-dsr completes $words', async ({ words, out }) => {
    // Act
    const { stdout } = await run('bash', [script, ...words]);
    // Assess
    expect(stdout).toBe(out);
  });

  it('sourced, completes dsr and kubectl-dsr in bash', async () => {
    // Act
    const { stdout } = await run('bash', [
      '-c',
      `source ${script}; COMP_WORDS=(dsr rollout un); COMP_CWORD=2; _dsr_bash; echo "\${COMPREPLY[*]}"; complete -p dsr kubectl-dsr`,
    ]);
    // Assess
    expect(stdout).toBe(
      'undo\ncomplete -o default -F _dsr_bash dsr\ncomplete -o default -F _dsr_bash kubectl-dsr\n'
    );
  });

  it('prints a zsh script for the same words', async () => {
    // Act
    const out = await runPlugin(['completion', 'zsh'], deps);
    // Assess
    expect(out.exitCode).toBe(0);
    expect(out.stdout.split('\n')[0]).toBe('#compdef dsr kubectl-dsr');
    expect(out.stdout).toContain("'set image') list='--dry-run --namespace");
    expect(out.stdout).toContain('compdef _dsr dsr kubectl-dsr');
  });
});
