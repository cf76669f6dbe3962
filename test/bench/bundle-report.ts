/**
 * Prints a Markdown table of each Lambda bundle's size and cold init time.
 *
 * Run from the repository root with Node 22 (which strips the types itself):
 *   node test/bench/bundle-report.ts
 * (on Node < 22.18 add --experimental-strip-types).
 *
 * The functions and the esbuild options come from serverless.yml as osls
 * resolves it (`osls print`), and are turned into esbuild options the way
 * serverless-esbuild 1.57 does (its defaults, its plugin-only keys removed,
 * `outputFileExtension` as `outExtension`), so the bundles are the ones
 * `npm run package` zips. Init time is the `await import()` of the bundle in
 * a fresh Node process with the function's NODE_OPTIONS, median of 5;
 * the process column adds Node's own start-up.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build } from 'esbuild';

const run = promisify(execFile);
const ROOT = process.cwd();
const RUNS = 5;

/** serverless-esbuild's options that esbuild itself does not take. */
const PLUGIN_ONLY_KEYS = [
  'concurrency',
  'zipConcurrency',
  'exclude',
  'nativeZip',
  'packager',
  'packagePath',
  'watch',
  'keepOutputDirectory',
  'packagerOptions',
  'installExtraArgs',
  'outputFileExtension',
  'outputBuildFolder',
  'outputWorkFolder',
  'nodeExternals',
  'skipBuild',
  'skipRebuild',
  'skipBuildExcludeFns',
  'stripEntryResolveExtensions',
  'disposeContext',
];

interface ServiceConfig {
  provider: { runtime: string; environment?: Record<string, unknown> };
  functions: Record<
    string,
    { handler: string; runtime?: string; environment?: Record<string, unknown> }
  >;
  custom?: { esbuild?: Record<string, unknown> };
  /** osls merges the `${file(...)}` list into one object. */
  resources?: Resources | Resources[];
}

interface Resources {
  Resources?: Record<string, { Properties?: { QueueName?: string } }>;
}

interface Row {
  name: string;
  raw: number;
  gzip: number;
  map: number;
  importMs: number;
  processMs: number;
  error?: string;
}

/** Returns serverless.yml with every variable resolved, as osls sees it. */
const loadServiceConfig = async (): Promise<ServiceConfig> => {
  const osls = join(ROOT, 'node_modules', 'osls', 'bin', 'serverless.js');
  const { stdout } = await run(
    process.execPath,
    [osls, 'print', '--format', 'json'],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }
  );
  return JSON.parse(stdout) as ServiceConfig;
};

/** Returns the esbuild options serverless-esbuild derives from the config. */
const esbuildOptions = (config: ServiceConfig): BuildOptions => {
  const custom = { ...(config.custom?.esbuild ?? {}) };
  const runtime = /^nodejs(\d+)/.exec(config.provider.runtime)?.[1];
  const exclude = (custom.exclude as string[] | undefined) ?? ['aws-sdk'];
  const external = (custom.external as string[] | undefined) ?? [];
  const ext = (custom.outputFileExtension as string | undefined) ?? '.js';
  for (const key of PLUGIN_ONLY_KEYS) delete custom[key];
  return {
    bundle: true,
    platform: 'node',
    ...(runtime ? { target: `node${runtime}` } : {}),
    ...custom,
    external: [...external, ...(exclude.includes('*') ? [] : exclude)],
    ...(ext === '.js' ? {} : { outExtension: { '.js': ext } }),
    logLevel: 'warning',
  };
};

/** Returns the entry file of `functions/x.handler`, as the plugin finds it. */
const entryOf = (handler: string): string => {
  const base = handler.slice(0, handler.lastIndexOf('.'));
  const found = ['.ts', '.mts', '.js', '.mjs']
    .map((ext) => `${base}${ext}`)
    .find((file) => existsSync(join(ROOT, file)));
  return found ?? `${base}.ts`;
};

/**
 * Returns environment values for the bundle's import: the function's own
 * variables with CloudFormation references replaced by plausible stand-ins
 * (a queue's Ref is its URL), plus dummy AWS credentials.
 */
const importEnv = (
  config: ServiceConfig,
  own: Record<string, unknown> = {}
): NodeJS.ProcessEnv => {
  const resources = Object.assign(
    {},
    ...[config.resources ?? []].flat().map((r) => r.Resources ?? {})
  ) as NonNullable<Resources['Resources']>;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  };
  for (const [k, v] of Object.entries({
    ...config.provider.environment,
    ...own,
  })) {
    const ref = (v as { Ref?: string } | null)?.Ref;
    const queue = ref ? resources[ref]?.Properties?.QueueName : undefined;
    env[k] =
      typeof v === 'string'
        ? v
        : queue
          ? `https://sqs.us-east-1.amazonaws.com/123456789012/${queue}`
          : String(ref ?? JSON.stringify(v));
  }
  return env;
};

const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** Imports `file` in fresh Node processes; returns median import and process ms. */
const measureInit = async (
  file: string,
  env: NodeJS.ProcessEnv
): Promise<{ importMs: number; processMs: number }> => {
  const script = `const t = performance.now();
const m = await import(${JSON.stringify(pathToFileURL(file).href)});
if (typeof m.handler !== 'function') throw new Error('no handler export');
process.stdout.write(String(performance.now() - t));`;
  const imports: number[] = [];
  const processes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const { stdout } = await run(
      process.execPath,
      ['--input-type=module', '-e', script],
      { env }
    );
    processes.push(performance.now() - started);
    imports.push(Number(stdout));
  }
  return { importMs: median(imports), processMs: median(processes) };
};

const reportFunction = async (
  name: string,
  entry: string,
  options: BuildOptions,
  env: NodeJS.ProcessEnv,
  outDir: string
): Promise<Row> => {
  const row = { name, raw: 0, gzip: 0, map: 0, importMs: 0, processMs: 0 };
  try {
    const dir = join(outDir, name);
    const result = await build({
      ...options,
      entryPoints: [join(ROOT, entry)],
      outdir: dir,
      metafile: true,
    });
    const output = Object.keys(result.metafile.outputs).find(
      (f) => !f.endsWith('.map')
    );
    if (!output) throw new Error('esbuild wrote no bundle');
    const file = join(ROOT, output);
    const code = await readFile(file);
    const map = existsSync(`${file}.map`) ? await stat(`${file}.map`) : null;
    const init = await measureInit(file, env);
    return {
      ...row,
      ...init,
      raw: code.length,
      gzip: gzipSync(code).length,
      map: map?.size ?? 0,
    };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { ...row, error: message.split('\n')[0] ?? message };
  }
};

const kib = (n: number): string => `${(n / 1024).toFixed(0)} KiB`;

const main = async (): Promise<void> => {
  const config = await loadServiceConfig();
  const options = esbuildOptions(config);
  const outDir = await mkdtemp(join(tmpdir(), 'dsr-bundle-report-'));
  const rows: Row[] = [];
  try {
    for (const [name, fn] of Object.entries(config.functions)) {
      const entry = entryOf(fn.handler);
      const env = importEnv(config, fn.environment);
      rows.push(await reportFunction(name, entry, options, env, outDir));
    }
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
  const lines = [
    `Bundles of ${basename(ROOT)} (${String(options.format)}, ${String(options.target)}, minify ${String(options.minify)}); init = median of ${RUNS} fresh \`node\` ${process.version} imports with NODE_OPTIONS=${importEnv(config).NODE_OPTIONS ?? ''}`,
    '',
    '| function | bundle | gzip | source map | init (import) | init (process) |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map((r) =>
      r.error
        ? `| ${r.name} | error: ${r.error} | | | | |`
        : `| ${r.name} | ${kib(r.raw)} | ${kib(r.gzip)} | ${kib(r.map)} | ${r.importMs.toFixed(0)} ms | ${r.processMs.toFixed(0)} ms |`
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (rows.some((r) => r.error)) process.exitCode = 1;
};

await main();
