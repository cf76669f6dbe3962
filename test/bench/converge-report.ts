/** Runs measurements 2 and 3 (creates, then rollouts) and renders them as Markdown. */

import { startBenchTestbed } from './bench-testbed.js';
import {
  runServerless,
  runUpstream,
  type ServerlessRun,
  type UpstreamRun,
} from './converge.js';
import {
  breakdownTable,
  convergeTable,
  countsTable,
  dollarsTable,
  perMillion,
  rolloutTable,
} from './converge-tables.js';
import { CountingProxy } from './counting-proxy.js';
import { say } from './markdown.js';
import { benchData } from './plot-data.js';
import { type RawRun, runRaw } from './raw-create.js';
import { PRICES, PRICES_SOURCE } from './usage-cost.js';

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
  const runs = { serverless, upstream, raw };
  return [
    '### 2. Time to converge (DaemonSet created → complete status, one available pod per node)',
    '',
    convergeTable(runs),
    '',
    '### 2b. Time to roll out (image changed, RollingUpdate maxUnavailable 10 % → every pod updated and available, status complete for the current generation)',
    '',
    'The raw loop replaces pods itself, driven by a watch on them: whenever fewer than maxUnavailable nodes lack an available new pod, the next node’s old pod is DELETEd and a new one POSTed (64 requests in flight). Its time ends at the watch event of the last new pod; the controllers’ at the 250-ms poll that sees them complete. API writes include KWOK’s final DELETEs of each deleted pod (2 per pod on this test bed: the raw loop’s own writes are 1 DELETE and 1 POST per pod).',
    '',
    rolloutTable(runs),
    '',
    '### 3. Cost per DaemonSet create and per rollout (serverless stack)',
    '',
    'Window: from the change until both queues are empty and no invocation ran for 5 s. Counted on the wire between the product’s SDK clients and the emulators (the pollers’ own receives and deletes are not counted). One row per run and phase.',
    '',
    countsTable(serverless),
    '',
    `In dollars (${PRICES_SOURCE}): Lambda = Σ billed ms / 1,000 × ${serverless[0]?.usage?.reconcileMemoryMb ?? '-'} MB / 1,024 × $${PRICES.lambdaGbSecond}/GB-s + invocations × ${perMillion(PRICES.lambdaRequest)}; DynamoDB = read units × ${perMillion(PRICES.dynamoReadUnit)} + write units × ${perMillion(PRICES.dynamoWriteUnit)}; SQS = FIFO requests × ${perMillion(PRICES.sqsFifoRequest)} + standard × ${perMillion(PRICES.sqsRequest)}, counting 2 requests (receive, delete) per invocation for the event-source mapping. See docs/benchmarks.md for how units are counted.`,
    '',
    dollarsTable(serverless),
    '',
    breakdownTable(
      serverless,
      (w) => w.aws.dynamoCalls,
      'DynamoDB operation, item kind'
    ),
    '',
    breakdownTable(serverless, (w) => w.aws.dynamoErrors, 'DynamoDB errors'),
    '',
    breakdownTable(serverless, (w) => w.aws.sqsCalls, 'SQS operation'),
  ].join('\n');
};
