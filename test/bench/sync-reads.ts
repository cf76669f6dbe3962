/**
 * Measurement 1: what one sync of a converged DaemonSet reads from the API
 * server, and how long it takes, at growing node counts — through the
 * product's read path and through a naive one (read-path.ts). Neighbour
 * DaemonSets in the same namespace give the namespace-wide pod list the
 * pods it would read in a real cluster's kube-system.
 */
import { createNamespace } from '../testbed/kube-fixtures.js';
import { createNodesInBatches, startBenchTestbed } from './bench-testbed.js';
import {
  fixed,
  kib,
  markdownTable,
  mean,
  percentile,
  say,
} from './markdown.js';
import { benchData } from './plot-data.js';
import {
  closeWarmReaders,
  collectingLogger,
  measureEachRead,
  measureSync,
  type ReaderKind,
  type Sample,
  warmReaderObjects,
} from './read-path.js';
import { convergeAll, createDaemonSets } from './reads-setup.js';

/** Knobs of measurement 1. */
export interface SyncReadsOptions {
  /** Node counts to measure at, ascending (nodes are added, never removed). */
  nodeCounts: number[];
  /** Measured syncs per reader and node count. */
  syncs: number;
  /** Other DaemonSets on every node in the measured one's namespace. */
  neighbours: number;
  /** Nodes created per parallel batch. */
  batchSize: number;
}

/** Collects the garbage of earlier work, when Node runs with --expose-gc. */
const collectGarbage = () => (globalThis as { gc?: () => void }).gc?.();

/** Returns how far the heap fell once `release` ran and garbage was collected. */
const heapFreedBy = async (release: () => void): Promise<number> => {
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  release();
  await new Promise((r) => setTimeout(r, 100));
  collectGarbage();
  return before - process.memoryUsage().heapUsed;
};

/** Batch shapes whose memory is measured: the old 10 at once, and 4. */
const PARALLEL_SYNCS = [4, 10];

/**
 * Returns how far the RSS rose above its level before `work`, sampled every
 * 5 ms while it runs (garbage of earlier work is collected first when Node
 * runs with --expose-gc).
 */
const peakRssGrowth = async (work: () => Promise<unknown>): Promise<number> => {
  collectGarbage();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, process.memoryUsage().rss) - before;
};

const CLUSTER = 'bench';
const NS = 'bench-reads';
const KEY = `${CLUSTER}/${NS}/agent`;
const KINDS = ['cached', 'snapshot', 'naive'] as const;

type Row = (string | number)[];

const meanRange = (values: readonly number[], f: (n: number) => string) =>
  `${f(mean(values))} (${f(Math.min(...values))}–${f(Math.max(...values))})`;

const msAt = (s: readonly Sample[], p: number, of: 'ms' | 'cpuMs' = 'ms') =>
  fixed(
    percentile(
      s.map((x) => x[of]),
      p
    )
  );

/** Returns the rows of one node count: per reader, and the readers' ratios. */
const summarise = (
  nodes: number,
  pods: number,
  samples: Record<ReaderKind, Sample[]>
): { rows: Row[]; ratio: Row } => {
  const rows = KINDS.map((kind) => {
    const s = samples[kind];
    return [
      nodes,
      pods,
      kind,
      s.length,
      meanRange(
        s.map((x) => x.requests),
        (n) => fixed(n)
      ),
      meanRange(
        s.map((x) => x.bytesRead),
        kib
      ),
      s.reduce((a, x) => a + x.bytesWritten, 0),
      msAt(s, 50),
      msAt(s, 95),
      msAt(s, 50, 'cpuMs'),
    ];
  });
  const by = (over: ReaderKind, under: ReaderKind) =>
    [
      (s: Sample[]) => mean(s.map((x) => x.requests)),
      (s: Sample[]) => mean(s.map((x) => x.bytesRead)),
      (s: Sample[]) =>
        percentile(
          s.map((x) => x.ms),
          50
        ),
    ].map((f) =>
      fixed(f(samples[over]) / Math.max(f(samples[under]), 1e-9), 2)
    );
  const ratio = [
    nodes,
    ...by('naive', 'snapshot'),
    ...by('snapshot', 'cached'),
  ];
  return { rows, ratio };
};

/** Runs measurement 1 on its own test bed; returns the Markdown report. */
export const runSyncReadsBench = async (
  o: SyncReadsOptions
): Promise<string> => {
  const testbed = await startBenchTestbed({ aws: false });
  say(`reads: test bed up in ${testbed.startMs} ms`);
  const { admin } = testbed;
  const http = testbed.controlPlane.http();
  const problems: string[] = [];
  const logger = collectingLogger(problems);
  const setupRows: Row[] = [];
  const rows: Row[] = [];
  const ratioRows: Row[] = [];
  const readRows: Row[] = [];
  const memoryRows: Row[] = [];
  const cacheRows: Row[] = [];
  try {
    await createNamespace(admin, NS);
    const names = await createDaemonSets(admin, NS, o.neighbours);
    const nodes: string[] = [];
    for (const target of o.nodeCounts) {
      const added = target - nodes.length;
      const t0 = Date.now();
      nodes.push(
        ...(await createNodesInBatches(
          admin,
          added,
          { prefix: `reads-${target}-` },
          o.batchSize
        ))
      );
      const nodesMs = Date.now() - t0;
      say(`reads: ${added} nodes added, Ready in ${nodesMs} ms`);
      const conv = await convergeAll(
        { admin, http, cluster: CLUSTER, ns: NS, names, nodeCount: target },
        logger
      );
      say(`reads: converged in ${conv.ms} ms (${conv.rounds} rounds)`);
      const pods = target * names.length;
      setupRows.push([target, added, nodesMs, conv.ms, conv.rounds, pods]);
      const samples: Record<ReaderKind, Sample[]> = {
        cached: [],
        snapshot: [],
        naive: [],
      };
      // Each reader in a block of its own, after one unrecorded sync that
      // warms connections: a warm container runs only cached syncs, so the
      // garbage of the others' big lists must not be collected inside its
      // samples (session 24 measured 116 ms p50 alternating, GC included).
      for (const kind of KINDS) {
        await measureSync(http, KEY, kind, logger);
        collectGarbage();
        for (let i = 0; i < o.syncs; i++) {
          samples[kind].push(await measureSync(http, KEY, kind, logger));
        }
      }
      // The heap a warm container's cache holds: what closing it frees.
      const kept = warmReaderObjects();
      const freed = await heapFreedBy(closeWarmReaders);
      cacheRows.push([
        target,
        kept,
        fixed(freed / 2 ** 20, 1),
        fixed(freed / Math.max(kept, 1) / 1024, 2),
      ]);
      const summary = summarise(target, pods, samples);
      for (const reader of KINDS) {
        const s = samples[reader];
        benchData.reads ??= [];
        benchData.reads.push({
          nodes: target,
          reader,
          requestsPerSync: mean(s.map((x) => x.requests)),
          kibPerSync: mean(s.map((x) => x.bytesRead)) / 1024,
          p50Ms: percentile(
            s.map((x) => x.ms),
            50
          ),
        });
      }
      rows.push(...summary.rows);
      ratioRows.push(summary.ratio);
      for (const [what, s] of await measureEachRead(http, NS, 'agent')) {
        readRows.push([target, what, s.requests, kib(s.bytesRead)]);
      }
      for (const parallel of PARALLEL_SYNCS) {
        const grewBy = await peakRssGrowth(() =>
          Promise.all(
            Array.from({ length: parallel }, () =>
              measureSync(http, KEY, 'snapshot', logger)
            )
          )
        );
        memoryRows.push([target, parallel, fixed(grewBy / 2 ** 20, 0)]);
      }
    }
  } finally {
    closeWarmReaders();
    http.close();
    await testbed.stop();
  }
  return [
    '### 1. API reads per sync of a converged DaemonSet',
    '',
    `The namespace holds the measured DaemonSet and ${o.neighbours} neighbour DaemonSet(s), each on every node. Bytes are response bodies as received (KubeHttp.stats: gzip-compressed where the API server compresses, i.e. answers over 128 KiB; watch events are not compressed). \`cached\` is a warm container's reader: nodes and pods kept current by watch, its first (cold) sync unrecorded. Per-sync values: mean (min–max) over ${o.syncs} syncs per reader, each reader's syncs in a block of their own after a forced GC (cached first), so no reader's garbage is collected in another's samples; every sync is a steady-state one (no pod or status writes). Times are wall clock; CPU is the process's user + system time over the sync (all threads, GC included).`,
    '',
    markdownTable(
      [
        'nodes',
        'pods in ns',
        'reader',
        'syncs',
        'API requests/sync',
        'KiB read/sync',
        'bytes written (all syncs)',
        'p50 ms',
        'p95 ms',
        'p50 CPU ms',
      ],
      rows
    ),
    '',
    markdownTable(
      [
        'nodes',
        'requests naive÷snapshot',
        'bytes naive÷snapshot',
        'p50 naive÷snapshot',
        'requests snapshot÷cached',
        'bytes snapshot÷cached',
        'p50 snapshot÷cached',
      ],
      ratioRows
    ),
    '',
    'Each read once (500 items per page):',
    '',
    markdownTable(['nodes', 'read', 'requests', 'KiB'], readRows),
    '',
    'Peak growth of the process RSS while a batch of syncs of the DaemonSet runs at once (the reconcile function runs at most 4 of a batch of 10 at once):',
    '',
    markdownTable(['nodes', 'syncs at once', 'RSS growth MiB'], memoryRows),
    '',
    'Heap a warm container keeps for the measured DaemonSet (its pods and the nodes), freed when its collections close (after a forced GC; Node runs the benchmarks with --expose-gc):',
    '',
    markdownTable(
      ['nodes', 'objects kept', 'heap MiB', 'KiB per object'],
      cacheRows
    ),
    '',
    'Test bed for measurement 1:',
    '',
    markdownTable(
      [
        'nodes',
        'nodes added',
        'node creation ms',
        'set-up convergence ms',
        'set-up sync rounds',
        'pods',
      ],
      setupRows
    ),
    ...(problems.length > 0
      ? [
          '',
          `Warnings logged during syncs (${problems.length}):`,
          ...problems.slice(0, 10),
        ]
      : []),
  ].join('\n');
};
