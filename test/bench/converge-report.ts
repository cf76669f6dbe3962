/** Runs measurements 2 and 3 and renders them as Markdown. */

import { startBenchTestbed } from './bench-testbed.js';
import {
  runServerless,
  runUpstream,
  type ServerlessRun,
  type UpstreamRun,
} from './converge.js';
import { CountingProxy } from './counting-proxy.js';
import { kib, markdownTable, percentile, say, seconds } from './markdown.js';
import { benchData } from './plot-data.js';
import { type RawRun, runRaw } from './raw-create.js';

/** Knobs of measurements 2 and 3. */
export interface ConvergeOptions {
  /** Node counts for the serverless stack. */
  serverlessNodes: number[];
  /** Node counts for upstream's controller. */
  upstreamNodes: number[];
  /** Client rate limits (--kube-api-qps) to run upstream's controller with. */
  upstreamQps: number[];
  /** Runs per node count and contender. */
  repeats: number;
  /** Node counts for the raw create loop (the API server's limit). */
  rawNodes: number[];
}

const joinRuns = <T>(runs: readonly T[], f: (r: T) => string | number) =>
  runs.map(f).join(' / ');

const convergeTable = (
  serverless: readonly ServerlessRun[],
  upstream: readonly UpstreamRun[],
  raw: readonly RawRun[]
): string => {
  const rows: (string | number)[][] = [];
  for (const n of [...new Set(raw.map((r) => r.nodes))]) {
    const mine = raw.filter((r) => r.nodes === n);
    rows.push([
      'raw create loop: pods POSTed with nodeName, 64 in flight (the API server’s limit)',
      n,
      mine.length,
      joinRuns(
        mine,
        (r) => `${seconds(r.convergeMs)} (posted in ${seconds(r.createMs)})`
      ),
      seconds(
        percentile(
          mine.map((r) => r.convergeMs),
          50
        )
      ),
      '-',
      '1.00',
    ]);
  }
  const groups: [string, readonly (ServerlessRun | UpstreamRun)[]][] = [
    ['serverless (bridge + SQS + reconcile Lambda)', serverless],
    ...[...new Set(upstream.map((r) => r.qps))].map(
      (qps): [string, UpstreamRun[]] => [
        `upstream kube-controller-manager (qps ${qps}, burst ${Math.ceil(qps * 1.5)})`,
        upstream.filter((r) => r.qps === qps),
      ]
    ),
  ];
  for (const [who, runs] of groups) {
    for (const n of [...new Set(runs.map((r) => r.nodes))]) {
      const mine = runs.filter((r) => r.nodes === n);
      rows.push([
        who,
        n,
        mine.length,
        joinRuns(mine, (r) => seconds(r.convergeMs)),
        seconds(
          percentile(
            mine.map((r) => r.convergeMs),
            50
          )
        ),
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

const costTable = (serverless: readonly ServerlessRun[]): string =>
  markdownTable(
    [
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
      'requeue invocations',
      'API requests (reconcile)',
      'KiB read (reconcile)',
      'DynamoDB ops',
    ],
    serverless.map((r) => [
      r.nodes,
      seconds(r.windowMs),
      r.quiet ? 'yes' : 'no',
      r.aws.workMessages,
      r.aws.delayMessages,
      r.reconcileInvocations,
      r.reconcileRecords,
      r.syncs,
      r.syncErrors,
      r.creates,
      r.requeueInvocations,
      r.kubeRequests,
      kib(r.kubeBytesRead),
      r.aws.dynamoTotal,
    ])
  );

/** One row per operation kind, one column per node count (runs joined). */
const breakdownTable = (
  serverless: readonly ServerlessRun[],
  pick: (r: ServerlessRun) => Map<string, number>,
  title: string
): string => {
  const counts = [...new Set(serverless.map((r) => r.nodes))];
  const kinds = [
    ...new Set(serverless.flatMap((r) => [...pick(r).keys()])),
  ].sort();
  if (kinds.length === 0) return `${title}: none in any run.`;
  return markdownTable(
    [title, ...counts.map((n) => `${n} nodes (each run)`)],
    kinds.map((k) => [
      k,
      ...counts.map((n) =>
        joinRuns(
          serverless.filter((r) => r.nodes === n),
          (r) => pick(r).get(k) ?? 0
        )
      ),
    ])
  );
};

/** Runs measurements 2 and 3 on their own test bed; returns the report. */
export const runConvergeBench = async (o: ConvergeOptions): Promise<string> => {
  const testbed = await startBenchTestbed({ aws: true });
  say(`converge: test bed up in ${testbed.startMs} ms`);
  const emulators = testbed.emulators;
  if (emulators === undefined) throw new Error('emulators missing');
  const proxies = {
    dynamodb: await CountingProxy.start(emulators.dynamodbEndpoint),
    sqs: await CountingProxy.start(emulators.sqsEndpoint),
  };
  const serverless: ServerlessRun[] = [];
  const upstream: UpstreamRun[] = [];
  const raw: RawRun[] = [];
  try {
    for (const n of o.serverlessNodes) {
      for (let run = 0; run < o.repeats; run++) {
        serverless.push(await runServerless(testbed, proxies, n, run));
      }
    }
    for (const qps of o.upstreamQps) {
      for (const n of o.upstreamNodes) {
        for (let run = 0; run < o.repeats; run++) {
          upstream.push(await runUpstream(testbed, n, run, qps));
        }
      }
    }
    for (const n of o.rawNodes) {
      for (let run = 0; run < o.repeats; run++) {
        raw.push(await runRaw(testbed, n, run));
      }
    }
  } finally {
    await proxies.dynamodb.close();
    await proxies.sqs.close();
    await testbed.stop();
  }
  benchData.converge = { serverless, upstream, raw };
  return [
    '### 2. Time to converge (DaemonSet created → complete status, one available pod per node)',
    '',
    convergeTable(serverless, upstream, raw),
    '',
    '### 3. Cost per DaemonSet create (serverless stack)',
    '',
    'Window: from the create until both queues are empty and no invocation ran for 5 s. Counted on the wire between the product’s SDK clients and the emulators (the pollers’ own receives and deletes are not counted). One row per run.',
    '',
    costTable(serverless),
    '',
    breakdownTable(
      serverless,
      (r) => r.aws.dynamoCalls,
      'DynamoDB operation, item kind'
    ),
    '',
    breakdownTable(serverless, (r) => r.aws.dynamoErrors, 'DynamoDB errors'),
    '',
    breakdownTable(serverless, (r) => r.aws.sqsCalls, 'SQS operation'),
  ].join('\n');
};
