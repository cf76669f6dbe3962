/**
 * `npm start` as a user runs it, with KUBECONFIG exported (as most platform
 * engineers have it) and its output through a pipe: it starts its own local
 * control plane and never touches the exported cluster, shows progress as
 * `kubectl get ds` does, answers `kubectl dsr plan` and `explain` on its
 * cluster, and on Ctrl-C stops every process and removes its directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAdvancedDaemonSets } from '#lib/adapters/kube/kube-advanced-daemon-sets.js';
import { runPlugin } from '#lib/cli/plugin/run-plugin.js';
import { bundleLocalEntry } from '../helpers/bundle-local-entry.js';

let bundle: string;

/** Resolves once `text` matches, with the output so far. */
const waitFor = (
  child: ChildProcess,
  out: { text: string },
  pattern: RegExp,
  timeoutMs: number
): Promise<RegExpMatchArray> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.stdout?.off('data', check);
      reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${out.text}`));
    }, timeoutMs);
    const check = () => {
      const m = out.text.match(pattern);
      if (m === null) return;
      clearTimeout(timer);
      child.stdout?.off('data', check);
      resolve(m);
    };
    child.stdout?.on('data', check);
    check();
  });

const portOpen = (url: string): Promise<boolean> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('npm start (the local run, end to end)', () => {
  let dir: string;
  let child: ChildProcess;
  const out = { text: '' };

  beforeAll(async () => {
    bundle = await bundleLocalEntry('npm-start-test.mjs');
    dir = await mkdtemp(join(tmpdir(), 'dsr-exported-'));
    const exported = join(dir, 'kubeconfig');
    await writeFile(
      exported,
      'apiVersion: v1\nkind: Config\nclusters: [{name: prod, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: prod, context: {cluster: prod, user: u}}]\ncurrent-context: prod\n'
    );
    child = spawn(process.execPath, [bundle, '--nodes', '3'], {
      env: { ...process.env, KUBECONFIG: exported },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (b: Buffer) => {
      out.text += b.toString();
    });
  }, 60_000);

  afterAll(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('starts its own control plane, converges the sample DaemonSet, and stops clean on Ctrl-C', async () => {
    // Act: wait for the kubectl-like table to show the DaemonSet converged.
    const [, server, kubeconfig] = await waitFor(
      child,
      out,
      /local control plane up: (\S+) \(kubeconfig (\S+)\)/,
      240_000
    );
    await waitFor(
      child,
      out,
      /NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE\nnode-agent\s+3\s+3\s+3\s+3\s+3\s+/,
      120_000
    );
    const deps = {
      open: (t: { kubeconfig?: string }) =>
        openAdvancedDaemonSets({ kubeconfig: t.kubeconfig ?? kubeconfig }),
      now: () => Date.now(),
      sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
      write: () => undefined,
    };
    const plan = await runPlugin(['plan', 'default/node-agent'], deps);
    const explain = await runPlugin(
      ['explain', 'node', 'kwok-node-0', '--ds', 'default/node-agent'],
      deps
    );
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) =>
      child.once('exit', (c) => resolve(c))
    );
    // Assess
    expect(out.text).not.toContain('127.0.0.1:1');
    expect(plan.stdout).toContain(
      'nothing to do: the DaemonSet matches its spec'
    );
    expect(explain.stdout).toMatch(
      /runs node-agent-\w+ \(current revision, Running, Ready\)/
    );
    expect(out.text).toContain('stopped');
    expect(code).toBe(0);
    expect(existsSync(dirname(kubeconfig as string))).toBe(false);
    expect(await portOpen(server as string)).toBe(false);
  }, 400_000);
});
