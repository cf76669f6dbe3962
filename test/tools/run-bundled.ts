/**
 * Runs a TypeScript entry of the project outside the test suite (the
 * benchmarks, the fault campaign):
 *   node test/tools/run-bundled.ts test/bench/main.ts [--flags of the entry]
 *
 * Node 22 strips the types of this file itself, but the entries import the
 * project through `#lib/*` and `.js` suffixes that Node cannot resolve to
 * `.ts` files, so the entry is bundled first with esbuild (as `npm start`
 * bundles functions/local.ts); packages stay external and load from
 * node_modules. The local cluster finds its files from the bundle's
 * directory upward (repositoryFile).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = process.cwd();
const entry = process.argv[2];
if (entry === undefined) {
  console.error('usage: node test/tools/run-bundled.ts <entry.ts> [flags]');
  process.exit(2);
}
// The entry parses the flags that follow it as its own.
process.argv.splice(2, 1);
const name = path.basename(path.dirname(entry));
const OUT = path.join(ROOT, '.build', name, 'main.mjs');

await build({
  entryPoints: [path.join(ROOT, entry)],
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
