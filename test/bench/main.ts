/**
 * The benchmarks behind the closing note, run outside the test suite (see
 * test/tools/run-bundled.ts): each suite starts its own test bed, measures, stops it, and the
 * Markdown report goes to stdout (progress lines too).
 *
 *   --suite reads,converge      which suites (default both)
 *   --nodes 100,1000,5000       node counts of every suite below whose own
 *                               flag is not given (reads, serverless,
 *                               upstream, raw)
 *   --read-nodes 100,1000       node counts of measurement 1
 *   --syncs 20                  measured syncs per reader and node count
 *   --neighbours 1              other DaemonSets in the measured namespace
 *   --batch 100                 nodes created per parallel batch
 *   --converge-nodes 5,100      node counts of the serverless stack
 *   --upstream-nodes 5,100      node counts of upstream's controller
 *   --upstream-qps 20,1000      upstream's --kube-api-qps (20 is its default)
 *   --repeats 3                 runs per node count and controller
 *   --raw-nodes 5,100           node counts of the raw create loop (the API
 *                               server's limit: pods POSTed with nodeName)
 *   --suite fleet               (opt-in) many clusters, one stack:
 *   --fleet-healthy 6           real clusters (API servers on one etcd)
 *   --fleet-sick 93             dead, slow and 429-answering neighbours
 *   --fleet-huge 1000           nodes of the huge cluster (0: none)
 *   --fleet-rounds 3            template changes per phase
 *   --suite idle                (opt-in) a converged fleet left idle:
 *   --idle-per-mode 2           clusters in watch mode, and as many in economy
 *   --idle-minutes 60           the idle window counted
 *   --plots DIR                 also write the data and SVG plots (Vega-Lite)
 *                               into DIR, e.g. docs/bench (the parts of
 *                               DIR's bench-data.json a suite that did not
 *                               run measured are kept)
 *   --replot DIR                only redraw DIR's plots from its bench-data.json
 *
 * BENCH_STACK_LOG=DIR keeps each serverless run's stack log (every line
 * with its wall time) as DIR/<namespace>.jsonl.
 *
 * The converge suite's serverless stack runs in a child process of this
 * bundle (stack-process.ts): with STACK_HOST_ENV set, the bundle serves
 * that stack and nothing else.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runConvergeBench } from './converge-report.js';
import { runFleetBench } from './fleet.js';
import { runIdleBench } from './idle-cost.js';
import { say, seconds } from './markdown.js';
import { benchData, mergeBenchData } from './plot-data.js';
import { renderPlots } from './plots.js';
import { STACK_HOST_ENV, serveStack } from './stack-process.js';
import { runSyncReadsBench } from './sync-reads.js';

if (process.env[STACK_HOST_ENV] === '1') await serveStack();

// The reconcile handler flushes Powertools metrics as EMF lines to stdout,
// which would drown the report; the bench counts syncs itself.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

const { values } = parseArgs({
  options: {
    suite: { type: 'string', default: 'reads,converge' },
    nodes: { type: 'string' },
    'read-nodes': { type: 'string' },
    syncs: { type: 'string', default: '20' },
    neighbours: { type: 'string', default: '1' },
    batch: { type: 'string', default: '100' },
    'converge-nodes': { type: 'string' },
    'upstream-nodes': { type: 'string' },
    'upstream-qps': { type: 'string', default: '20,1000' },
    repeats: { type: 'string', default: '3' },
    'raw-nodes': { type: 'string' },
    'fleet-healthy': { type: 'string', default: '6' },
    'fleet-sick': { type: 'string', default: '93' },
    'fleet-huge': { type: 'string', default: '1000' },
    'fleet-rounds': { type: 'string', default: '3' },
    'idle-per-mode': { type: 'string', default: '2' },
    'idle-minutes': { type: 'string', default: '60' },
    plots: { type: 'string' },
    replot: { type: 'string' },
  },
});

/** Returns the data in DIR's bench-data.json, or nothing when it has none. */
const readBenchData = (dir: string): typeof benchData => {
  const file = join(dir, 'bench-data.json');
  return existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as typeof benchData)
    : {};
};

if (values.replot !== undefined) {
  const data = readBenchData(values.replot);
  say(`Plots: ${(await renderPlots(data, values.replot)).join(', ')}`);
  process.exit(0);
}

/** A suite's node counts: its own flag, else --nodes, else its default. */
const nodesOf = (own: string | undefined, fallback: string) =>
  own ?? values.nodes ?? fallback;

const numbers = (s: string) =>
  s
    .split(',')
    .filter((x) => x !== '')
    .map((x) => {
      const n = Number(x);
      if (!Number.isInteger(n) || n < 0) throw new Error(`not a count: ${x}`);
      return n;
    });

const suites = new Set(values.suite.split(','));
const sections: string[] = [];
const walls: [string, number][] = [];
const timed = async (name: string, run: () => Promise<string>) => {
  const t0 = Date.now();
  sections.push(await run());
  walls.push([name, Date.now() - t0]);
};

const machine = `${cpus().length} CPUs, load average at start ${loadavg()
  .map((l) => l.toFixed(2))
  .join(' ')}, Node ${process.version}`;
if (suites.has('reads')) {
  await timed('reads', () =>
    runSyncReadsBench({
      nodeCounts: numbers(nodesOf(values['read-nodes'], '100,1000')),
      syncs: Number(values.syncs),
      neighbours: Number(values.neighbours),
      batchSize: Number(values.batch),
    })
  );
}
if (suites.has('converge')) {
  await timed('converge', () =>
    runConvergeBench({
      serverlessNodes: numbers(nodesOf(values['converge-nodes'], '5,100')),
      upstreamNodes: numbers(nodesOf(values['upstream-nodes'], '5,100')),
      upstreamQps: numbers(values['upstream-qps']),
      repeats: Number(values.repeats),
      rawNodes: numbers(nodesOf(values['raw-nodes'], '5,100')),
    })
  );
}
if (suites.has('fleet')) {
  await timed('fleet', () =>
    runFleetBench({
      healthy: Number(values['fleet-healthy']),
      sick: Number(values['fleet-sick']),
      hugeNodes: Number(values['fleet-huge']),
      rounds: Number(values['fleet-rounds']),
      nodesPerCluster: 3,
    })
  );
}
if (suites.has('idle')) {
  await timed('idle', () =>
    runIdleBench({
      perMode: Number(values['idle-per-mode']),
      minutes: Number(values['idle-minutes']),
    })
  );
}
say('');
say(`## Benchmarks (${new Date().toISOString()}; ${machine})`);
say('');
say(sections.join('\n\n'));
say('');
say(
  `Wall time: ${walls.map(([n, ms]) => `${n} ${seconds(ms)} s`).join(', ')}.`
);
if (values.plots !== undefined) {
  const files = await renderPlots(
    mergeBenchData(readBenchData(values.plots), benchData),
    values.plots
  );
  say(`Plots: ${files.join(', ')}`);
}
// Keep-alive sockets of SDK clients may hold the loop open.
process.exit(0);
