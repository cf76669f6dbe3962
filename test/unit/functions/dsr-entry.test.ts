/**
 * The bundled command (`dsr`, `kubectl dsr`) on a Node.js older than it
 * needs: one line naming the release needed, exit code 1, before any
 * bundled library runs. Runs the bundle under the machine's Node 20.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../infra/package-template.js';

const run = promisify(execFile);
/** Debian's Node.js, older than the one npm installs for the scripts. */
const OLD_NODE = '/usr/bin/node';

let dir: string;
let bundle: string;

describe('dsr on an old Node.js', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dsr-entry-'));
    bundle = join(dir, 'dsr.mjs');
    await build({
      entryPoints: [join(REPO_ROOT, 'functions/dsr.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      logLevel: 'warning',
      minify: true,
      banner: {
        js: "#!/usr/bin/env node\nimport{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);",
      },
      outfile: bundle,
    });
  }, 60_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([['version'], ['clusters', 'list'], ['get', 'ds']])(
    'exits 1 with one line naming the release needed: dsr %s',
    async (...argv: string[]) => {
      // Prepare
      const { stdout: old } = await run(OLD_NODE, ['--version']);
      expect(Number(old.trim().replace(/^v/, '').split('.')[0])).toBeLessThan(
        22
      );

      // Act
      const error = (await run(OLD_NODE, [bundle, ...argv]).catch(
        (e: unknown) => e
      )) as { code: number; stdout: string; stderr: string };

      // Assess
      expect(error.code).toBe(1);
      expect(error.stdout).toBe('');
      expect(error.stderr).toBe(
        `error: dsr needs Node.js 22.19.0 or newer; this is Node.js ${old.trim().replace(/^v/, '')}\n`
      );
    },
    30_000
  );

  it('runs on the Node.js npm installs', async () => {
    // Act
    const { stdout } = await run(process.execPath, [bundle, '--help']);

    // Assess
    expect(stdout.length).toBeGreaterThan(0);
  });
});
