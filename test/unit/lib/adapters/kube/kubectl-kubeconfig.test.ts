/**
 * kubectl's kubeconfig loading: a multi-file KUBECONFIG merges with the
 * first file to set a name winning (no "Duplicate user"), relative paths
 * resolve against their own file, and a missing context is client-go's
 * `context "X" does not exist` — through `kubectl dsr` with exit code 1.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAdvancedDaemonSets } from '#lib/adapters/kube/kube-advanced-daemon-sets.js';
import { loadKubectlConfig } from '#lib/adapters/kube/kubectl-kubeconfig.js';
import type { PluginDeps } from '#lib/cli/plugin/plugin-deps.js';
import { runPlugin } from '#lib/cli/plugin/run-plugin.js';

const dir = mkdtempSync(path.join(tmpdir(), 'dsr-kubeconfig-'));

/** Writes a kubeconfig with one cluster, user `u` and context; returns its path. */
const kubeconfig = (
  file: string,
  o: { cluster: string; server: string; token: string; current?: string }
) => {
  const p = path.join(dir, file);
  writeFileSync(
    p,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: ${o.cluster}`,
      `  cluster: {server: "${o.server}", certificate-authority: ca.crt}`,
      'users:',
      '- name: u',
      `  user: {token: ${o.token}}`,
      'contexts:',
      `- name: ${o.cluster}`,
      `  context: {cluster: ${o.cluster}, user: u, namespace: ns-${o.cluster}}`,
      ...(o.current ? [`current-context: ${o.current}`] : []),
      '',
    ].join('\n')
  );
  return p;
};

const a = kubeconfig('a.yaml', {
  cluster: 'a',
  server: 'https://a.example:6443',
  token: 'token-a',
  current: 'a',
});
const b = kubeconfig('b.yaml', {
  cluster: 'b',
  server: 'https://b.example:6443',
  token: 'token-b',
  current: 'b',
});
const both = [a, path.join(dir, 'missing.yaml'), b].join(path.delimiter);

describe('loadKubectlConfig', () => {
  it('merges a multi-file KUBECONFIG: the first file to set a name or the current context wins', () => {
    // Act
    const kc = loadKubectlConfig({ kubeconfigEnv: both });
    const other = loadKubectlConfig({ kubeconfigEnv: both, context: 'b' });
    // Assess
    expect(kc.getCurrentContext()).toBe('a');
    expect(kc.getContexts().map((c) => c.name)).toEqual(['a', 'b']);
    expect(kc.getUsers().map((u) => [u.name, u.token])).toEqual([
      ['u', 'token-a'],
    ]);
    expect(other.getCurrentCluster()?.server).toBe('https://b.example:6443');
    expect(other.getCurrentUser()?.token).toBe('token-a');
  });

  it('resolves a relative file path against the file that names it', () => {
    // Act
    const kc = loadKubectlConfig({ kubeconfig: a });
    // Assess
    expect(kc.getCurrentCluster()?.caFile).toBe(path.join(dir, 'ca.crt'));
  });
});

describe('kubectl dsr on a kubeconfig', () => {
  const deps = (kubeconfigEnv?: string): PluginDeps => ({
    open: (t) =>
      openAdvancedDaemonSets({
        ...t,
        ...(kubeconfigEnv ? { kubeconfigEnv } : {}),
      }),
    now: () => 0,
    sleep: async () => undefined,
    write: () => undefined,
  });

  it.each([
    { name: 'from KUBECONFIG', argv: ['get', '--context', 'nope'], env: both },
    {
      name: 'from --kubeconfig',
      argv: ['plan', 'advds/x', '--context', 'nope', '--kubeconfig', a],
      env: undefined,
    },
  ])(
    'says a missing --context does not exist, as kubectl, exit 1 ($name)',
    async ({ argv, env }) => {
      // Act
      const out = await runPlugin(argv, deps(env));
      // Assess
      expect(out).toEqual({
        exitCode: 1,
        stdout: '',
        stderr: 'error: context "nope" does not exist\n',
      });
    }
  );

  it('names a refused connection as kubectl does, in plan and explain (not NotFound)', async () => {
    // Prepare
    const refused = kubeconfig('refused.yaml', {
      cluster: 'r',
      server: 'https://127.0.0.1:1',
      token: 't',
      current: 'r',
    });
    writeFileSync(path.join(dir, 'ca.crt'), '');
    // Act
    const plan = await runPlugin(
      ['plan', 'kube-system/x', '--kubeconfig', refused],
      deps()
    );
    const explain = await runPlugin(
      ['explain', 'node', 'n', '--ds', 'x', '--kubeconfig', refused],
      deps()
    );
    // Assess
    const line =
      'The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n';
    expect(plan).toEqual({ exitCode: 1, stdout: '', stderr: line });
    expect(explain).toEqual({ exitCode: 1, stdout: '', stderr: line });
  });
});
