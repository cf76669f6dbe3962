/**
 * Measurements 2 and 3: time from DaemonSet created to converged (complete
 * status, one available pod per node) for the serverless stack and for
 * upstream kube-controller-manager's DaemonSet controller on the same test
 * bed; and, per DaemonSet create, the SQS messages, reconcile invocations,
 * syncs and DynamoDB operations the serverless stack spent.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { sleep } from '#lib/bridge/resource-watch.js';
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
import {
  controllerWritesByKind,
  totalWrites,
  writesSince,
} from './controller-writes.js';
import type { CountingProxy } from './counting-proxy.js';
import { say } from './markdown.js';

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

/** One serverless run's results. */
export interface ServerlessRun {
  nodes: number;
  convergeMs: number;
  /** Available pods over time: [ms since the create, pods]. */
  series: [number, number][];
  /** The controller's writes, from the API server's /metrics. */
  apiWrites: number;
  /** The same, by `VERB resource[/subresource]`. */
  writes: Record<string, number>;
  /** From DaemonSet create until queues empty and pollers idle for QUIET_MS. */
  windowMs: number;
  quiet: boolean;
  reconcileInvocations: number;
  reconcileRecords: number;
  syncs: number;
  syncErrors: number;
  creates: number;
  requeueInvocations: number;
  /** API requests and response bytes of the reconcile function's client. */
  kubeRequests: number;
  kubeBytesRead: number;
  aws: AwsCallSummary;
  nodeCreationMs: number;
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
  await createAgentDaemonSet(admin, ns, { bench: ns });
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

/** Runs the serverless stack on `n` fresh nodes; returns its measurements. */
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
    const kube = { ...session.connection.stats() };
    const marks = {
      dynamo: proxies.dynamodb.mark(),
      sqs: proxies.sqs.mark(),
      inv: invocationState(stack),
      syncs: stack.metrics.syncs,
      syncErrors: stack.metrics.syncErrors,
      creates: stack.metrics.creates,
    };
    const started = Date.now();
    const writesBefore = await controllerWritesByKind(testbed.admin);
    const { ms: convergeMs, series } = await timeToConverge(testbed, ns, nodes);
    say(`serverless: ${n} nodes converged in ${convergeMs} ms`);
    const quiet = await waitQuiet(stack);
    const writes = writesSince(
      writesBefore,
      await controllerWritesByKind(testbed.admin)
    );
    const windowMs = Date.now() - started;
    say(`serverless: quiet=${quiet} after ${windowMs} ms`);
    // Why syncs failed (each is retried with backoff): the report's first lines.
    for (const line of stack.logger.lines.filter(
      (l) => l.message === 'sync failed; retrying with backoff'
    )) {
      say(`serverless: sync failed: ${JSON.stringify(line.fields)}`);
    }
    const inv = invocationState(stack);
    return {
      nodes: n,
      convergeMs,
      series,
      apiWrites: totalWrites(writes),
      writes,
      windowMs,
      quiet,
      reconcileInvocations: inv.reconcile - marks.inv.reconcile,
      reconcileRecords: inv.records - marks.inv.records,
      requeueInvocations: inv.requeue - marks.inv.requeue,
      syncs: stack.metrics.syncs - marks.syncs,
      syncErrors: stack.metrics.syncErrors - marks.syncErrors,
      creates: stack.metrics.creates - marks.creates,
      kubeRequests: session.connection.stats().requests - kube.requests,
      kubeBytesRead: session.connection.stats().bytesRead - kube.bytesRead,
      aws: summariseAwsCalls(
        proxies.sqs.since(marks.sqs),
        proxies.dynamodb.since(marks.dynamo),
        { workUrl: stack.queues.work.url, delayUrl: stack.queues.delay.url }
      ),
      nodeCreationMs,
    };
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
    const writesBefore = await controllerWritesByKind(testbed.admin);
    const { ms: convergeMs, series } = await timeToConverge(testbed, ns, nodes);
    say(`upstream (qps ${qps}): ${n} nodes converged in ${convergeMs} ms`);
    // As long as the product's quiet wait, for the writes that follow.
    await sleep(QUIET_MS);
    const writes = writesSince(
      writesBefore,
      await controllerWritesByKind(testbed.admin)
    );
    return {
      nodes: n,
      qps,
      convergeMs,
      series,
      apiWrites: totalWrites(writes),
      writes,
      nodeCreationMs,
    };
  } finally {
    await stopProcess(kcm);
    await cleanUpRun(testbed.admin, ns, nodes);
  }
};
