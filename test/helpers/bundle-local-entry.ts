/**
 * Bundles `npm start`'s entry (functions/local.ts) the way package.json's
 * `start` script does, into `.build/<name>`, and returns the file.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../unit/infra/package-template.js';

const run = promisify(execFile);

export const bundleLocalEntry = async (name: string): Promise<string> => {
  const bundle = join(REPO_ROOT, '.build', name);
  await run(
    join(REPO_ROOT, 'node_modules', '.bin', 'esbuild'),
    [
      'functions/local.ts',
      '--bundle',
      '--platform=node',
      '--format=esm',
      '--target=node22',
      '--log-level=warning',
      "--banner:js=import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);",
      `--outfile=${bundle}`,
    ],
    { cwd: REPO_ROOT }
  );
  return bundle;
};
