/**
 * Measurements 2 and 3: time from DaemonSet created to converged (complete
 * status, one available pod per node) for the serverless stack and for
 * upstream kube-controller-manager's DaemonSet controller on the same test
 * bed, then time to roll out a template change (rollout.ts); and, per
 * create and per rollout, the SQS messages, reconcile invocations, syncs
 * and DynamoDB operations the serverless stack spent, and what they would
 * cost on AWS (usage-cost.ts).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { sleep } from '#lib/bridge/resource-watch.js';
import { repositoryFile } from '#lib/local-cluster/repository-file.js';
import {
  type Component,
  isRunning,
  stopProcess,
  tailLog,
  waitFor,
} from '../../lib/local-cluster/processes.js';
import { queueCounts } from '../helpers/sqs-queues.js';
import {
  isConverged,
  isPodAvailable,
  livePodsOf,
} from '../integration/serverless/cluster-state.js';
import { ServerlessStack } from '../integration/serverless/stack.js';
import {
  createAgentDaemonSet,
  createNamespace,
} from '../testbed/kube-fixtures.js';
import { startUpstreamDaemonSetController } from '../testbed/upstream-controller.js';
import { type AwsCallSummary, summariseAwsCalls } from './aws-call-summary.js';
import {
  type BenchTestbed,
  cleanUpRun,
  createNodesInBatches,
} from './bench-testbed.js';
import { countingWrites } from './controller-writes.js';
import type { CountingProxy } from './counting-proxy.js';
import { say } from './markdown.js';
import {
  OLD_IMAGE,
  ROLLING_UPDATE,
  type RolloutResult,
  timeToRollOut,
} from './rollout.js';
import { keepStackLog } from './stack-log.js';
import { timeReconcileBatches } from './time-reconcile-batches.js';
import {
  billedMs,
  ESM_REQUESTS_PER_INVOCATION,
  functionMemoryMb,
  requestsTo,
  requestUnitsOfAll,
  type StackUsage,
} from './usage-cost.js';

/** How often convergence is checked (one DS GET and one pod list). */
const POLL_MS = 250;
const CONVERGE_TIMEOUT_MS = 10 * 60_000;
/**
 * After the controller is up (bridge lease taken / informer caches synced),
 * time for it to open its watches before the DaemonSet is created, so the
 * clock measures reconciling, not start-up.
 */
const SETTLE_MS = 3_000;
/** The stack counts as done when nothing happened for this long. */
const QUIET_MS = 5_000;
const QUIET_TIMEOUT_MS = 120_000;

/** What the serverless stack spent in one window (a create or a rollout). */
export interface StackWindow {
  /** From the change until queues empty and pollers idle for QUIET_MS. */
  windowMs: number;
  quiet: boolean;
  reconcileInvocations: number;
  reconcileRecords: number;
  syncs: number;
  syncErrors: number;
  creates: number;
  /** Absent in data written before rollouts were measured. */
  deletes?: number;
  requeueInvocations: number;
  /** API requests and response bytes of the reconcile function's client. */
  kubeRequests: number;
  kubeBytesRead: number;
  /**
   * The DaemonSet's pods at the window's end as compact JSON (what they
   * weigh on the wire uncompressed); absent in data written before.
   */
  podBytes?: number;
  aws: AwsCallSummary;
  /** Absent in data written before costs were measured. */
  usage?: StackUsage;
}

/** One serverless run's results: its create, then its rollout. */
export interface ServerlessRun extends StackWindow {
  nodes: number;
  convergeMs: number;
  /** Available pods over time: [ms since the create, pods]. */
  series: [number, number][];
  /** The controller's writes, from the API server's /metrics. */
  apiWrites: number;
  /** The same, by `VERB resource[/subresource]`. */
  writes: Record<string, number>;
  nodeCreationMs: number;
  /** Absent in data written before rollouts were measured. */
  rollout?: RolloutResult & StackWindow;
}

/** One upstream run's results. */
export interface UpstreamRun {
  nodes: number;
  /** The controller's client-side rate limit (--kube-api-qps). */
  qps: number;
  convergeMs: number;
  /** Available pods over time: [ms since the create, pods]. */
  series: [number, number][];
  /** The controller's writes, from the API server's /metrics. */
  apiWrites: number;
  /** The same, by `VERB resource[/subresource]`. */
  writes: Record<string, number>;
  nodeCreationMs: number;
  /** Absent in data written before rollouts were measured. */
  rollout?: RolloutResult;
}

/** The counting proxies in front of the emulators. */
export interface Proxies {
  dynamodb: CountingProxy;
  sqs: CountingProxy;
}

const invocationState = (stack: ServerlessStack) => ({
  reconcile: stack.reconcilePoller.invocations.length,
  records: stack.reconcilePoller.invocations.reduce(
    (a, i) => a + i.records.length,
    0
  ),
  requeue: stack.requeuePoller.invocations.length,
});

/** Waits until both queues are empty and no invocation ran for QUIET_MS. */
const waitQuiet = async (stack: ServerlessStack): Promise<boolean> => {
  const started = Date.now();
  let last = JSON.stringify(invocationState(stack));
  let lastChange = Date.now();
  while (Date.now() - started < QUIET_TIMEOUT_MS) {
    await sleep(POLL_MS);
    const now = JSON.stringify(invocationState(stack));
    if (now !== last) {
      last = now;
      lastChange = Date.now();
      continue;
    }
    if (Date.now() - lastChange < QUIET_MS) continue;
    const { client, work, delay } = stack.queues;
    const counts = [
      await queueCounts(client, work.url),
      await queueCounts(client, delay.url),
    ];
    if (counts.every((c) => c.visible + c.inFlight + c.delayed === 0)) {
      return true;
    }
  }
  return false;
};

/**
 * Creates the agent DaemonSet of `ns`; returns the ms until it converged,
 * and the available pods at each poll on the way.
 */
const timeToConverge = async (
  testbed: BenchTestbed,
  ns: string,
  nodes: readonly string[]
): Promise<{ ms: number; series: [number, number][] }> => {
  const { admin } = testbed;
  const started = Date.now();
  const series: [number, number][] = [[0, 0]];
  await createAgentDaemonSet(admin, ns, { bench: ns }, OLD_IMAGE, {
    updateStrategy: ROLLING_UPDATE,
  });
  await waitFor(
    `convergence on ${nodes.length} nodes`,
    async () => {
      const pods = await livePodsOf(admin, ns, 'agent');
      const available = pods.filter(isPodAvailable).length;
      series.push([Date.now() - started, available]);
      if (available < nodes.length) return undefined;
      return (await isConverged(admin, ns, nodes)) ? true : undefined;
    },
    CONVERGE_TIMEOUT_MS,
    POLL_MS
  );
  return { ms: Date.now() - started, series };
};

const prepareRun = async (testbed: BenchTestbed, ns: string, n: number) => {
  await createNamespace(testbed.admin, ns);
  const t0 = Date.now();
  const nodes = await createNodesInBatches(testbed.admin, n, {
    prefix: `${ns}-`,
    labels: { bench: ns },
  });
  return { nodes, nodeCreationMs: Date.now() - t0 };
};

/** The reconcile function's memory as deployed, for its GB-seconds. */
const reconcileMemoryMb = () =>
  functionMemoryMb(
    readFileSync(repositoryFile(import.meta.url, 'serverless.yml'), 'utf8'),
    'reconcile'
  );

/** What a serverless window is measured with. */
interface StackProbe {
  testbed: BenchTestbed;
  proxies: Proxies;
  stack: ServerlessStack;
  /** The reconcile side's cluster connection (its client's counters). */
  kube: { stats(): { requests: number; bytesRead: number } };
  /** Each finished reconcile invocation's ms (timeReconcileBatches). */
  durationsMs: number[];
  memoryMb: number;
}

/**
 * Runs `act` (a create or a rollout, timed by itself), waits until the
 * stack is quiet, and returns `act`'s timing with the controller's writes
 * and what the stack spent from the start of `act` until quiet.
 */
const measureWindow = async (
  p: StackProbe,
  ns: string,
  act: () => Promise<{ ms: number; series: [number, number][] }>
): Promise<RolloutResult & StackWindow> => {
  const { stack, proxies } = p;
  const kube = { ...p.kube.stats() };
  const marks = {
    dynamo: proxies.dynamodb.mark(),
    sqs: proxies.sqs.mark(),
    inv: invocationState(stack),
    durations: p.durationsMs.length,
    metrics: { ...stack.metrics },
  };
  const started = Date.now();
  let quiet = false;
  const timed = await countingWrites(p.testbed.admin, act, async () => {
    quiet = await waitQuiet(stack);
  });
  const windowMs = Date.now() - started;
  const podBytes = (await livePodsOf(p.testbed.admin, ns, 'agent')).reduce(
    (sum, pod) => sum + Buffer.byteLength(JSON.stringify(pod)),
    0
  );
  const inv = invocationState(stack);
  const sqs = proxies.sqs.since(marks.sqs);
  const queues = {
    workUrl: stack.queues.work.url,
    delayUrl: stack.queues.delay.url,
  };
  const units = requestUnitsOfAll(proxies.dynamodb.since(marks.dynamo));
  const reconcileInvocations = inv.reconcile - marks.inv.reconcile;
  const requeueInvocations = inv.requeue - marks.inv.requeue;
  return {
    ...timed,
    windowMs,
    quiet,
    reconcileInvocations,
    reconcileRecords: inv.records - marks.inv.records,
    requeueInvocations,
    syncs: stack.metrics.syncs - marks.metrics.syncs,
    syncErrors: stack.metrics.syncErrors - marks.metrics.syncErrors,
    creates: stack.metrics.creates - marks.metrics.creates,
    deletes: stack.metrics.deletes - marks.metrics.deletes,
    kubeRequests: p.kube.stats().requests - kube.requests,
    kubeBytesRead: p.kube.stats().bytesRead - kube.bytesRead,
    podBytes,
    aws: summariseAwsCalls(sqs, proxies.dynamodb.since(marks.dynamo), queues),
    usage: {
      reconcileInvocations,
      reconcileBilledMs: billedMs(p.durationsMs.slice(marks.durations)),
      reconcileMemoryMb: p.memoryMb,
      requeueInvocations,
      dynamoReadUnits: units.read,
      dynamoWriteUnits: units.write,
      sqsFifoRequests:
        requestsTo(sqs, queues.workUrl) +
        ESM_REQUESTS_PER_INVOCATION * reconcileInvocations,
      sqsStandardRequests:
        requestsTo(sqs, queues.delayUrl) +
        ESM_REQUESTS_PER_INVOCATION * requeueInvocations,
    },
  };
};

/** Logs why syncs failed since line `from` (each is retried with backoff). */
const sayFailedSyncs = (stack: ServerlessStack, from: number) => {
  for (const line of stack.logger.lines
    .slice(from)
    .filter((l) => l.message === 'sync failed; retrying with backoff')) {
    say(`serverless: sync failed: ${JSON.stringify(line.fields)}`);
  }
};

/**
 * Runs the serverless stack on `n` fresh nodes: a create, then a rollout;
 * returns their measurements.
 */
export const runServerless = async (
  testbed: BenchTestbed,
  proxies: Proxies,
  n: number,
  run: number
): Promise<ServerlessRun> => {
  const emulators = testbed.emulators;
  if (emulators === undefined) throw new Error('test bed without emulators');
  const ns = `bench-sls-${n}-${run}`;
  const { nodes, nodeCreationMs } = await prepareRun(testbed, ns, n);
  const up = Date.now();
  const stack = await ServerlessStack.start({
    kubeconfigPath: testbed.controlPlane.kubeconfigPath,
    endpoints: {
      dynamodb: emulators.dynamodbEndpoint,
      sqs: emulators.sqsEndpoint,
    },
    productEndpoints: {
      dynamodb: proxies.dynamodb.endpoint,
      sqs: proxies.sqs.endpoint,
    },
    // The deployed reconcile timeout and work-queue visibility
    // (serverless.yml, infra/resources/queues.yml), not the tests' short ones.
    timing: { functionTimeoutMs: 60_000, visibilitySeconds: 360 },
  });
  try {
    const durationsMs = timeReconcileBatches(stack.wiring.reconciler);
    const leaseSeen = proxies.dynamodb.mark();
    await waitFor(
      'the bridge to take its lease',
      async () =>
        proxies.dynamodb
          .since(leaseSeen)
          .some((c) => JSON.stringify(c.input ?? {}).includes('"lease#'))
          ? true
          : undefined,
      60_000,
      100
    );
    say(`serverless: stack up, bridge leased after ${Date.now() - up} ms`);
    await sleep(SETTLE_MS);
    // Opens the reconcile side's cluster session now, so its client's
    // counters can be read before and after.
    const session = await stack.wiring.sessions.get(stack.cluster);
    if (session === undefined) throw new Error('cluster not registered');
    const probe: StackProbe = {
      testbed,
      proxies,
      stack,
      kube: session.connection,
      durationsMs,
      memoryMb: reconcileMemoryMb(),
    };
    const logFrom = stack.logger.lines.length;
    const { ms: convergeMs, ...create } = await measureWindow(probe, ns, () =>
      timeToConverge(testbed, ns, nodes)
    );
    say(
      `serverless: ${n} nodes converged in ${convergeMs} ms, quiet=${create.quiet} after ${create.windowMs} ms`
    );
    const rollout = await measureWindow(probe, ns, () =>
      timeToRollOut(testbed.admin, ns, nodes)
    );
    say(
      `serverless: ${n} nodes rolled out in ${rollout.ms} ms, quiet=${rollout.quiet} after ${rollout.windowMs} ms`
    );
    sayFailedSyncs(stack, logFrom);
    keepStackLog(stack.logger.lines, ns);
    return { nodes: n, convergeMs, ...create, nodeCreationMs, rollout };
  } finally {
    const stopping = Date.now();
    await stack.stop();
    say(`serverless: stack stopped in ${Date.now() - stopping} ms`);
    await cleanUpRun(testbed.admin, ns, nodes);
  }
};

/** Waits until the controller logs its informers synced (only the DaemonSet controller runs). */
const waitCachesSynced = (kcm: Component, from: number) =>
  waitFor(
    'upstream DaemonSet controller caches to sync',
    async () => {
      if (!isRunning(kcm)) throw new Error(tailLog(kcm, 20));
      if (!existsSync(kcm.logFile)) return undefined;
      const text = readFileSync(kcm.logFile).subarray(from).toString('utf8');
      return /"Caches are synced"/.test(text) ? true : undefined;
    },
    60_000,
    100
  );

/**
 * Runs upstream's DaemonSet controller on `n` fresh nodes, with client rate
 * limit `qps` and burst 1.5 × qps (kube-controller-manager's defaults are
 * 20 and 30).
 */
export const runUpstream = async (
  testbed: BenchTestbed,
  n: number,
  run: number,
  qps: number
): Promise<UpstreamRun> => {
  const ns = `bench-kcm-${n}-${qps}-${run}`;
  const { nodes, nodeCreationMs } = await prepareRun(testbed, ns, n);
  const logFile = `${testbed.logDir}/kcm-daemonset.log`;
  const from = existsSync(logFile) ? statSync(logFile).size : 0;
  const kcm = await startUpstreamDaemonSetController({
    binDir: testbed.binDir,
    kubeconfigPath: testbed.controlPlane.kubeconfigPath,
    logDir: testbed.logDir,
    qps,
    burst: Math.ceil(qps * 1.5),
  });
  try {
    await waitCachesSynced(kcm, from).catch((e: unknown) => {
      throw new Error(`${String(e)}\n${tailLog(kcm, 20)}`);
    });
    await sleep(SETTLE_MS);
    // As long as the product's quiet wait, for the writes that follow.
    const settle = () => sleep(QUIET_MS);
    const { ms: convergeMs, ...create } = await countingWrites(
      testbed.admin,
      () => timeToConverge(testbed, ns, nodes),
      settle
    );
    say(`upstream (qps ${qps}): ${n} nodes converged in ${convergeMs} ms`);
    const rollout = await countingWrites(
      testbed.admin,
      () => timeToRollOut(testbed.admin, ns, nodes),
      settle
    );
    say(`upstream (qps ${qps}): ${n} nodes rolled out in ${rollout.ms} ms`);
    return { nodes: n, qps, convergeMs, ...create, nodeCreationMs, rollout };
  } finally {
    await stopProcess(kcm);
    await cleanUpRun(testbed.admin, ns, nodes);
  }
};
