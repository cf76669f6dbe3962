/**
 * Runs the benchmarks of test/bench/main.ts outside the test suite.
 *
 * From the repository root with Node 22 (which strips the types of this
 * file itself), at low priority because they load the whole machine:
 *   nice -n 10 node test/bench/run.ts [--suite reads|converge] [...]
 *
 * The benchmark code imports the project through `#lib/*` and `.js` suffixes
 * that Node cannot resolve to `.ts` files, so it is bundled first with
 * esbuild (as `npm start` bundles functions/local.ts); packages stay
 * external and load from node_modules. The local cluster finds its files from
 * the bundle's directory upward (repositoryFile).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = process.cwd();
const OUT = path.join(ROOT, '.build', 'bench', 'main.mjs');

await build({
  entryPoints: [path.join(ROOT, 'test', 'bench', 'main.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  packages: 'external',
  sourcemap: 'inline',
  logLevel: 'warning',
  outfile: OUT,
});
await import(pathToFileURL(OUT).href);
