/**
 * `npm start`'s command line: `--help` prints the usage, a wrong option is
 * one clear line and exit code 2, never a stack trace.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleLocalEntry } from '../../helpers/bundle-local-entry.js';
import { selfSignedPem } from '../../helpers/self-signed-pem.js';

const run = promisify(execFile);
let bundle: string;

describe('npm start (functions/local.ts)', () => {
  beforeAll(async () => {
    bundle = await bundleLocalEntry('local-entry-test.mjs');
  }, 60_000);

  it('prints its usage for --help and exits 0', async () => {
    const { stdout } = await run(process.execPath, [bundle, '--help']);
    expect(stdout).toMatch(/^usage: npm start /);
    expect(stdout).toContain('--kubeconfig PATH');
  });

  it('refuses an unknown option in one line, with exit code 2', async () => {
    const error = (await run(process.execPath, [bundle, '--bogus']).catch(
      (e: unknown) => e
    )) as { code: number; stderr: string };
    expect(error.code).toBe(2);
    expect(error.stderr).toBe(
      "error: Unknown option '--bogus'\nSee 'npm start -- --help'.\n"
    );
  });

  it('names a real cluster and asks before reconciling it: without a terminal, --yes is required', async () => {
    // Prepare: a kubeconfig whose server refuses connections.
    const dir = await mkdtemp(join(tmpdir(), 'dsr-start-'));
    const file = join(dir, 'kubeconfig');
    await writeFile(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", certificate-authority-data: "' +
          Buffer.from(selfSignedPem()).toString('base64') +
          '"}}]',
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: c, context: {cluster: c, user: u}}]',
        'current-context: c',
      ].join('\n')
    );
    try {
      // Act
      const error = (await run(
        process.execPath,
        [bundle, '--kubeconfig', file],
        {
          timeout: 30_000,
        }
      ).catch((e: unknown) => e)) as {
        code: number;
        stdout: string;
        stderr: string;
      };
      // Assess
      expect(error.code).toBe(2);
      expect(error.stdout).toContain(
        'cluster: https://127.0.0.1:1, context (current context)'
      );
      expect(error.stdout).toContain(
        'warning: could not tell whether another DaemonSet controller is active'
      );
      expect(error.stderr).toBe(
        'error: this reconciles every DaemonSet of that cluster; pass --yes to go on\n'
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
