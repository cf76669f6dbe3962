/**
 * The converge suite's Markdown tables, from its runs: time to converge
 * and to roll out per contender, and what the serverless stack spent per
 * create and per rollout, in calls and in dollars. Pure: runs in, text out.
 */
import type { ServerlessRun, StackWindow, UpstreamRun } from './converge.js';
import { fixed, kib, markdownTable, percentile, seconds } from './markdown.js';
import type { RawCreate, RawRun } from './raw-create.js';
import type { RolloutResult } from './rollout.js';
import { priceUsage } from './usage-cost.js';

/** All runs of the converge suite. */
export interface ConvergeRuns {
  serverless: readonly ServerlessRun[];
  upstream: readonly UpstreamRun[];
  raw: readonly RawRun[];
}

const RAW =
  'raw create loop: pods POSTed with nodeName, 64 in flight (the API server’s limit)';
const RAW_SCHEDULED =
  'raw create loop through kube-scheduler: pods POSTed with the DaemonSet’s node affinity, 64 in flight';
const RAW_ROLLOUT =
  'raw loop: old pod DELETEd and a new one POSTed per node as the window allows, 64 in flight (the API server’s limit)';
const SERVERLESS = 'serverless (bridge + SQS + reconcile Lambda)';
const upstreamName = (qps: number) =>
  `upstream kube-controller-manager (qps ${qps}, burst ${Math.ceil(qps * 1.5)})`;

const joinRuns = <T>(runs: readonly T[], f: (r: T) => string | number) =>
  runs.map(f).join(' / ');

const nodeCounts = (runs: readonly { nodes: number }[]) => [
  ...new Set(runs.map((r) => r.nodes)),
];

const median = (values: readonly number[]) => percentile(values, 50);

/** The contenders other than the raw loop, each with its runs. */
const controllerGroups = (
  o: ConvergeRuns
): [string, readonly (ServerlessRun | UpstreamRun)[]][] => [
  [SERVERLESS, o.serverless],
  ...[...new Set(o.upstream.map((r) => r.qps))].map(
    (qps): [string, UpstreamRun[]] => [
      upstreamName(qps),
      o.upstream.filter((r) => r.qps === qps),
    ]
  ),
];

/** A raw create loop's row of the converge table. */
const rawCreateRow = (
  who: string,
  n: number,
  runs: readonly RawCreate[],
  writesPerPod: string
): (string | number)[] => [
  who,
  n,
  runs.length,
  joinRuns(
    runs,
    (r) => `${seconds(r.convergeMs)} (posted in ${seconds(r.createMs)})`
  ),
  seconds(median(runs.map((r) => r.convergeMs))),
  '-',
  writesPerPod,
];

/** Returns the time to converge per contender and node count. */
export const convergeTable = (o: ConvergeRuns): string => {
  const rows: (string | number)[][] = [];
  for (const n of nodeCounts(o.raw)) {
    const mine = o.raw.filter((r) => r.nodes === n);
    rows.push(rawCreateRow(RAW, n, mine, '1.00'));
    const scheduled = mine.flatMap((r) => (r.scheduled ? [r.scheduled] : []));
    if (scheduled.length > 0) {
      rows.push(rawCreateRow(RAW_SCHEDULED, n, scheduled, '-'));
    }
  }
  for (const [who, runs] of controllerGroups(o)) {
    for (const n of nodeCounts(runs)) {
      const mine = runs.filter((r) => r.nodes === n);
      rows.push([
        who,
        n,
        mine.length,
        joinRuns(mine, (r) => seconds(r.convergeMs)),
        seconds(median(mine.map((r) => r.convergeMs))),
        joinRuns(mine, (r) => seconds(r.nodeCreationMs)),
        joinRuns(mine, (r) => (r.apiWrites / r.nodes).toFixed(2)),
      ]);
    }
  }
  return markdownTable(
    [
      'controller',
      'nodes',
      'runs',
      'converge s (each run)',
      'median s',
      'node creation s (test bed)',
      'API writes per pod (apiserver /metrics; each run)',
    ],
    rows
  );
};

/**
 * Returns `ms` over the reference's, as `1.23×`, or `-` without a
 * reference.
 */
export const ratio = (ms: number, referenceMs: number | undefined): string =>
  referenceMs === undefined || !(referenceMs > 0)
    ? '-'
    : `${(ms / referenceMs).toFixed(2)}×`;

/**
 * Returns the time to roll out per contender and node count, with each
 * median over that of kube-controller-manager at its highest qps (issue
 * #12's goal: within 1.2× at 5,000 nodes).
 */
export const rolloutTable = (o: ConvergeRuns): string => {
  const topQps = Math.max(...o.upstream.map((r) => r.qps));
  const rolloutsOf = (runs: readonly { rollout?: RolloutResult }[]) =>
    runs.flatMap((r) => (r.rollout === undefined ? [] : [r.rollout]));
  const reference = (n: number) => {
    const ms = rolloutsOf(
      o.upstream.filter((r) => r.qps === topQps && r.nodes === n)
    ).map((r) => r.ms);
    return ms.length === 0 ? undefined : median(ms);
  };
  const groups: [string, readonly (ServerlessRun | UpstreamRun | RawRun)[]][] =
    [[RAW_ROLLOUT, o.raw], ...controllerGroups(o)];
  const rows: (string | number)[][] = [];
  for (const [who, runs] of groups) {
    for (const n of nodeCounts(runs)) {
      const mine = rolloutsOf(runs.filter((r) => r.nodes === n));
      if (mine.length === 0) continue;
      const m = median(mine.map((r) => r.ms));
      rows.push([
        who,
        n,
        mine.length,
        joinRuns(mine, (r) => seconds(r.ms)),
        seconds(m),
        ratio(m, reference(n)),
        joinRuns(mine, (r) => (r.apiWrites / n).toFixed(2)),
      ]);
    }
  }
  if (rows.length === 0) return 'Rolling update: not measured.';
  return markdownTable(
    [
      'controller',
      'nodes',
      'runs',
      'rollout s (each run)',
      'median s',
      `median ÷ kube-controller-manager qps ${topQps}`,
      'API writes per pod (apiserver /metrics; each run)',
    ],
    rows
  );
};

/** The serverless windows, each with its phase name. */
const windowsOf = (
  serverless: readonly ServerlessRun[]
): { phase: string; nodes: number; w: StackWindow }[] =>
  serverless.flatMap((r) => [
    { phase: 'create', nodes: r.nodes, w: r },
    ...(r.rollout === undefined
      ? []
      : [{ phase: 'rollout', nodes: r.nodes, w: r.rollout }]),
  ]);

/** Returns what the stack's clients and functions did, one row per run and phase. */
export const countsTable = (serverless: readonly ServerlessRun[]): string =>
  markdownTable(
    [
      'phase',
      'nodes',
      'window s',
      'quiet',
      'work msgs',
      'delay msgs',
      'reconcile invocations',
      'records',
      'syncs',
      'sync errors',
      'pods created',
      'pods deleted',
      'requeue invocations',
      'API requests (reconcile)',
      'KiB read (reconcile)',
      'KiB of its pods (JSON)',
      'DynamoDB ops',
      'containers started (at timeout)',
      'stack peak RSS MiB',
    ],
    windowsOf(serverless).map(({ phase, nodes, w }) => [
      phase,
      nodes,
      seconds(w.windowMs),
      w.quiet ? 'yes' : 'no',
      w.aws.workMessages,
      w.aws.delayMessages,
      w.reconcileInvocations,
      w.reconcileRecords,
      w.syncs,
      w.syncErrors,
      w.creates,
      w.deletes ?? '-',
      w.requeueInvocations,
      w.kubeRequests,
      kib(w.kubeBytesRead),
      w.podBytes === undefined ? '-' : kib(w.podBytes),
      w.aws.dynamoTotal,
      w.containers === undefined
        ? '-'
        : `${w.containers.started} (${w.containers.timedOut})`,
      w.peakRssBytes === undefined
        ? '-'
        : (w.peakRssBytes / 1024 / 1024).toFixed(0),
    ])
  );

/** Returns USD with enough digits to show a fraction of a cent. */
export const usd = (dollars: number): string =>
  `$${dollars < 0.01 ? dollars.toFixed(6) : dollars.toFixed(4)}`;

/** Returns a unit price per million units, e.g. `$0.625/M`, `$0.20/M`. */
export const perMillion = (price: number): string => {
  const thousandths = Math.round(price * 1e9);
  return `$${(thousandths / 1_000).toFixed(thousandths % 10 === 0 ? 2 : 3)}/M`;
};

/** Returns what each create and rollout would cost on AWS, one row per run and phase. */
export const dollarsTable = (serverless: readonly ServerlessRun[]): string => {
  const rows = windowsOf(serverless).flatMap(({ phase, nodes, w }) => {
    if (w.usage === undefined) return [];
    const u = w.usage;
    const c = priceUsage(u);
    return [
      [
        phase,
        nodes,
        u.reconcileInvocations,
        seconds(u.reconcileBilledMs),
        c.gbSeconds.toFixed(2),
        usd(c.lambda),
        fixed(u.dynamoReadUnits, 1),
        u.dynamoWriteUnits,
        usd(c.dynamo),
        `${u.sqsFifoRequests} + ${u.sqsStandardRequests}`,
        usd(c.sqs),
        `**${usd(c.total)}**`,
        usd((c.total / nodes) * 1_000),
      ],
    ];
  });
  if (rows.length === 0) return 'Cost in dollars: not measured.';
  return markdownTable(
    [
      'phase',
      'nodes',
      'reconcile invocations',
      'billed s',
      'GB-s',
      'Lambda',
      'DynamoDB read units',
      'write units',
      'DynamoDB',
      'SQS requests (FIFO + standard)',
      'SQS',
      'total',
      'per 1,000 pods',
    ],
    rows
  );
};

/**
 * Returns one row per kind `pick` counts and one column per node count and
 * phase (runs joined).
 */
export const breakdownTable = (
  serverless: readonly ServerlessRun[],
  pick: (w: StackWindow) => Map<string, number>,
  title: string
): string => {
  const windows = windowsOf(serverless);
  const columns = [
    ...new Set(windows.map(({ phase, nodes }) => `${nodes} nodes, ${phase}`)),
  ];
  const kinds = [
    ...new Set(windows.flatMap(({ w }) => [...pick(w).keys()])),
  ].sort();
  if (kinds.length === 0) return `${title}: none in any run.`;
  return markdownTable(
    [title, ...columns.map((c) => `${c} (each run)`)],
    kinds.map((k) => [
      k,
      ...columns.map((c) =>
        joinRuns(
          windows.filter(
            ({ phase, nodes }) => `${nodes} nodes, ${phase}` === c
          ),
          ({ w }) => pick(w).get(k) ?? 0
        )
      ),
    ])
  );
};
