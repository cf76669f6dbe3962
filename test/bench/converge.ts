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
import { abortableSleep } from '#lib/bridge/abortable-sleep.js';
import {
  type Component,
  isRunning,
  stopProcess,
  tailLog,
  waitFor,
} from '../../lib/local-cluster/processes.js';
import {
  isConverged,
  isPodAvailable,
  livePodsOf,
} from '../integration/serverless/cluster-state.js';
import {
  createAgentDaemonSet,
  createNamespace,
} from '../testbed/kube-fixtures.js';
import { startUpstreamDaemonSetController } from '../testbed/upstream-controller.js';
import type { AwsCallSummary } from './aws-call-summary.js';
import {
  type BenchTestbed,
  cleanUpRun,
  createNodesInBatches,
} from './bench-testbed.js';
import { countingWrites } from './controller-writes.js';
import type { CountingProxy } from './counting-proxy.js';
import { say } from './markdown.js';
import { withCpuAccount } from './process-cpu.js';
import {
  OLD_IMAGE,
  ROLLING_UPDATE,
  type RolloutResult,
  timeToRollOut,
} from './rollout.js';
import { keepStackLog } from './stack-log.js';
import { type StackCounters, StackProcess } from './stack-process.js';
import {
  measureWindow,
  QUIET_MS,
  reconcileMemoryMb,
  type StackProbe,
  sayFailedSyncs,
  sayReadsByKind,
} from './stack-window.js';
import type { StackUsage } from './usage-cost.js';

/** How often convergence is checked (one DS GET and one pod list). */
const POLL_MS = 250;
const CONVERGE_TIMEOUT_MS = 10 * 60_000;
/**
 * After the controller is up (bridge lease taken / informer caches synced),
 * time for it to open its watches before the DaemonSet is created, so the
 * clock measures reconciling, not start-up.
 */
const SETTLE_MS = 3_000;

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
  /**
   * API requests and bytes read (headers included) of the reconcile
   * function's containers; before session 17, its client's body bytes.
   */
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
  /** `kubeRequests` and `kubeBytesRead` by kind of request; absent before session 17. */
  kubeByKind?: StackCounters['kubeByKind'];
  /** The stack process's peak RSS; absent in data written before it ran apart. */
  peakRssBytes?: number;
  /** Containers started, and ended at their timeout; absent before they existed. */
  containers?: { started: number; timedOut: number };
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
  const leaseSeen = proxies.dynamodb.mark();
  const stack = await StackProcess.start({
    kubeconfigPath: testbed.controlPlane.kubeconfigPath,
    apiServer: new URL(testbed.controlPlane.server).host,
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
    await abortableSleep(SETTLE_MS);
    const probe: StackProbe = {
      testbed,
      proxies,
      stack,
      memoryMb: reconcileMemoryMb(),
    };
    const logFrom = (await stack.counters()).logLines;
    const { ms: convergeMs, ...create } = await measureWindow(probe, ns, () =>
      withCpuAccount(`serverless: ${n} nodes, create`, () =>
        timeToConverge(testbed, ns, nodes)
      )
    );
    say(
      `serverless: ${n} nodes converged in ${convergeMs} ms, quiet=${create.quiet} after ${create.windowMs} ms`
    );
    sayReadsByKind('create', create);
    const rollout = await measureWindow(probe, ns, () =>
      withCpuAccount(`serverless: ${n} nodes, rollout`, () =>
        timeToRollOut(testbed.admin, ns, nodes)
      )
    );
    say(
      `serverless: ${n} nodes rolled out in ${rollout.ms} ms, quiet=${rollout.quiet} after ${rollout.windowMs} ms`
    );
    sayReadsByKind('rollout', rollout);
    const lines = await stack.lines();
    sayFailedSyncs(lines.slice(logFrom));
    keepStackLog(lines, ns);
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
    await abortableSleep(SETTLE_MS);
    // As long as the product's quiet wait, for the writes that follow.
    const settle = () => abortableSleep(QUIET_MS);
    const { ms: convergeMs, ...create } = await countingWrites(
      testbed.admin,
      () =>
        withCpuAccount(`upstream (qps ${qps}): ${n} nodes, create`, () =>
          timeToConverge(testbed, ns, nodes)
        ),
      settle
    );
    say(`upstream (qps ${qps}): ${n} nodes converged in ${convergeMs} ms`);
    const rollout = await countingWrites(
      testbed.admin,
      () =>
        withCpuAccount(`upstream (qps ${qps}): ${n} nodes, rollout`, () =>
          timeToRollOut(testbed.admin, ns, nodes)
        ),
      settle
    );
    say(`upstream (qps ${qps}): ${n} nodes rolled out in ${rollout.ms} ms`);
    return { nodes: n, qps, convergeMs, ...create, nodeCreationMs, rollout };
  } finally {
    await stopProcess(kcm);
    await cleanUpRun(testbed.admin, ns, nodes);
  }
};
