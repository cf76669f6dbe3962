/**
 * The benchmark's plots, drawn with Vega-Lite (rendered to SVG by Vega, no
 * browser): convergence over time per contender, for the create and for
 * the rolling update, the controller's API writes by verb and resource,
 * and what a steady-state sync reads against the node count. `--plots DIR`
 * writes them with the data they come from.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { BenchData } from './plot-data.js';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

/** Long contender names are the point of a legend: never cut them. */
const CONFIG = {
  legend: { labelLimit: 0 },
  axis: { labelLimit: 0 },
} as const;

/** Renders one Vega-Lite spec to SVG text. */
const svgOf = async (spec: TopLevelSpec): Promise<string> => {
  const view = new vega.View(
    vega.parse(compile({ ...spec, config: CONFIG } as TopLevelSpec).spec),
    {
      renderer: 'none',
    }
  );
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
};

/** Pods over time: [ms since the change, pods]. */
type Series = [number, number][];

/** What a progress plot draws: which series of each run, and its words. */
interface ProgressPlot {
  title: string;
  /** The raw contender's name in the legend. */
  raw: string;
  pick: (run: {
    series: Series;
    rollout?: { series: Series };
  }) => Series | undefined;
  xTitle: string;
  yTitle: string;
}

const CREATE: ProgressPlot = {
  title: 'DaemonSet create: share of nodes with an available pod over time',
  raw: 'raw create loop (API server limit)',
  pick: (r) => r.series,
  xTitle: 's since the create',
  yTitle: 'nodes with an available pod',
};

/** The raw create loop's run through kube-scheduler, in the create plot. */
const SCHEDULED = 'raw create loop through kube-scheduler';

const ROLLOUT: ProgressPlot = {
  title:
    'Rolling update (maxUnavailable 10 %): share of nodes with an updated, available pod over time',
  raw: 'raw replace loop (API server limit)',
  pick: (r) => r.rollout?.series,
  xTitle: 's since the template change',
  yTitle: 'nodes with an updated, available pod',
};

/** Pods over time, one line per contender, one panel per node count. */
const progressSpec = (
  data: NonNullable<BenchData['converge']>,
  plot: ProgressPlot
): TopLevelSpec => {
  const rows = [
    ...data.serverless.map((r, i) => ({ r, who: 'this product', run: i })),
    ...data.upstream.map((r, i) => ({
      r,
      who: `kube-controller-manager, qps ${r.qps}`,
      run: i,
    })),
    ...(data.raw ?? []).map((r, i) => ({ r, who: plot.raw, run: i })),
    ...(plot === CREATE ? (data.raw ?? []) : []).flatMap((r, i) =>
      r.scheduled
        ? [{ r: { nodes: r.nodes, ...r.scheduled }, who: SCHEDULED, run: i }]
        : []
    ),
  ].flatMap(({ r, who, run }) => {
    return (plot.pick(r) ?? []).map(([ms, pods]) => ({
      nodes: `${r.nodes} nodes`,
      contender: who,
      run: `${who} #${run}`,
      seconds: ms / 1000,
      share: pods / r.nodes,
    }));
  });
  return {
    $schema: SCHEMA,
    title: plot.title,
    data: { values: rows },
    facet: { column: { field: 'nodes', type: 'nominal', title: null } },
    resolve: { scale: { x: 'independent' } },
    spec: {
      width: 320,
      height: 220,
      mark: { type: 'line', interpolate: 'step-after' },
      encoding: {
        x: {
          field: 'seconds',
          type: 'quantitative',
          title: plot.xTitle,
        },
        y: {
          field: 'share',
          type: 'quantitative',
          title: plot.yTitle,
          axis: { format: '%' },
        },
        color: { field: 'contender', type: 'nominal', title: null },
        detail: { field: 'run', type: 'nominal' },
      },
    },
  };
};

/** The controllers' writes per placed pod, by verb and resource. */
const writesSpec = (data: NonNullable<BenchData['converge']>): TopLevelSpec => {
  const runs = [
    ...data.serverless.map((r) => ({ r, who: 'this product' })),
    ...data.upstream.map((r) => ({ r, who: `KCM qps ${r.qps}` })),
  ];
  const rows = runs.flatMap(({ r, who }) =>
    Object.entries(r.writes).map(([kind, n]) => ({
      contender: `${who}, ${r.nodes} nodes`,
      kind,
      perPod: n / r.nodes,
    }))
  );
  return {
    $schema: SCHEMA,
    title:
      'API writes per placed pod, by verb and resource (apiserver /metrics)',
    data: { values: rows },
    width: 360,
    mark: 'bar',
    encoding: {
      y: { field: 'contender', type: 'nominal', title: null },
      x: {
        aggregate: 'mean',
        field: 'perPod',
        type: 'quantitative',
        title: 'writes per pod (mean of runs)',
      },
      color: { field: 'kind', type: 'nominal', title: 'request' },
    },
  };
};

/** KiB read per steady-state sync against node count, per reader. */
const readsSpec = (reads: NonNullable<BenchData['reads']>): TopLevelSpec => ({
  $schema: SCHEMA,
  title: 'Bytes read from the API server per no-op sync',
  data: { values: reads },
  width: 360,
  height: 240,
  mark: { type: 'line', point: true },
  encoding: {
    x: {
      field: 'nodes',
      type: 'quantitative',
      scale: { type: 'log' },
      title: 'nodes',
    },
    y: {
      field: 'kibPerSync',
      type: 'quantitative',
      scale: { type: 'log' },
      title: 'KiB read per sync',
    },
    color: { field: 'reader', type: 'nominal', title: 'reader' },
  },
});

/** A JSON replacer that writes Maps (the AWS call summaries) as objects. */
const mapsAsObjects = (_key: string, value: unknown): unknown =>
  value instanceof Map ? Object.fromEntries(value) : value;

/**
 * Writes `bench-data.json` and the plots of what `data` holds into `dir`;
 * returns the files written.
 */
export const renderPlots = async (
  data: BenchData,
  dir: string
): Promise<string[]> => {
  mkdirSync(dir, { recursive: true });
  const files: [string, string][] = [
    ['bench-data.json', `${JSON.stringify(data, mapsAsObjects, 1)}\n`],
  ];
  if (data.converge !== undefined) {
    files.push([
      'convergence.svg',
      await svgOf(progressSpec(data.converge, CREATE)),
    ]);
    const rolledOut = [
      ...data.converge.serverless,
      ...data.converge.upstream,
      ...(data.converge.raw ?? []),
    ].some((r) => r.rollout !== undefined);
    if (rolledOut) {
      files.push([
        'rollout.svg',
        await svgOf(progressSpec(data.converge, ROLLOUT)),
      ]);
    }
    files.push(['writes-by-kind.svg', await svgOf(writesSpec(data.converge))]);
  }
  if (data.reads !== undefined) {
    files.push(['reads-per-sync.svg', await svgOf(readsSpec(data.reads))]);
  }
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
  return files.map(([name]) => join(dir, name));
};
