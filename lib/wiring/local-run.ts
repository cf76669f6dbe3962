/**
 * `npm start`, composed: reads the command line, starts the local control
 * plane (or names the real cluster, checks that the mode fits it and asks),
 * runs the product in one process (LocalRuntime), shows the progress
 * table, and stops every process it started on Ctrl-C, SIGTERM, SIGHUP or
 * a closed pipe.
 */
import { createInterface } from 'node:readline/promises';
import { serverOfRecord } from '../adapters/kube/kube-config-for-cluster.js';
import { MemoryRequestBudget } from '../adapters/memory/memory-request-budget.js';
import { systemClock } from '../adapters/system-clock.js';
import { findRivalController } from '../cli/clusters/check-ownership.js';
import {
  LOCAL_RUN_USAGE,
  type LocalRunOptions,
  parseLocalRunArgs,
  reviewLocalRunOwnership,
  whatItReconciles,
} from '../cli/local-run-options.js';
import { KubeApiError } from '../errors.js';
import { startLocalCluster } from '../local-cluster/local-cluster.js';
import type { ClusterConnection, ClusterRecord } from '../ports/index.js';
import { createLocalConnector, LocalRuntime } from './local-runtime.js';
import { LocalScreen } from './local-screen.js';

/** Ends the process with one error line. */
function fail(message: string, code: number): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(code);
}

/** Returns the record of the one cluster the local run reconciles. */
const localRecord = (
  options: LocalRunOptions,
  kubeconfigPath: string
): ClusterRecord => ({
  id: 'local',
  endpoint: '',
  caData: '',
  auth: {
    type: 'kubeconfig',
    path: kubeconfigPath,
    ...(options.context ? { context: options.context } : {}),
  },
  ownership: options.ownership,
  bridgeMode: 'watch',
});

/**
 * Before reconciling a real cluster: names it, refuses one that does not
 * fit the mode (naming the modes that do), and asks (or takes --yes).
 */
const confirmRealCluster = async (
  record: ClusterRecord,
  options: LocalRunOptions,
  connect: (r: ClusterRecord) => Promise<ClusterConnection>,
  say: (line: string) => void
): Promise<void> => {
  say(
    `cluster: ${serverOfRecord(record)}, context ${options.context ?? '(current context)'}`
  );
  const rival = await findRivalController(record, {
    connect,
    timeoutMs: 5_000,
  });
  const review = reviewLocalRunOwnership(record.ownership, rival);
  if (review.refusal) fail(review.refusal, 1);
  if (review.warning) say(`warning: ${review.warning}`);
  if (options.yes) return;
  const what = whatItReconciles(record.ownership);
  if (!process.stdin.isTTY) {
    fail(`this reconciles ${what} of that cluster; pass --yes to go on`, 2);
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const answer = await rl.question(`reconcile ${what} there? [y/N] `);
  rl.close();
  if (answer.trim().toLowerCase() !== 'y') {
    say('nothing done');
    process.exit(0);
  }
};

/** Refuses the own kind on a cluster that does not serve it. */
const requireOwnedKind = async (
  connection: ClusterConnection
): Promise<void> => {
  try {
    await connection.watch.list('daemonSets');
  } catch (e) {
    if (!(e instanceof KubeApiError && e.statusCode === 404)) return;
    connection.close();
    fail(
      'the cluster does not serve AdvancedDaemonSets (apps.dsr.dev/v1beta1); install the CRD first: kubectl apply -f infra/kubernetes/advanced-daemonset-crd.yaml',
      1
    );
  }
};

/**
 * Runs `npm start` with the arguments after `--` until a signal stops it.
 *
 * @example
 * await runLocal(process.argv.slice(2)); // e.g. ['--own-kind', '--nodes', '3']
 */
export const runLocal = async (argv: readonly string[]): Promise<void> => {
  const args = parseLocalRunArgs(argv);
  if (args.kind === 'help') {
    process.stdout.write(LOCAL_RUN_USAGE);
    process.exit(0);
  }
  if (args.kind === 'error') {
    fail(`${args.message}\nSee 'npm start -- --help'.`, 2);
  }
  const { options } = args;
  const screen = new LocalScreen(process.stdout);
  const { say, logger } = screen;
  // Only an explicit --kubeconfig leaves the local control plane: most
  // platform engineers export KUBECONFIG, and it may name production.
  const local = options.kubeconfig
    ? undefined
    : await startLocalCluster(options.nodes, say, options.ownership);
  const record = localRecord(
    options,
    options.kubeconfig ?? local?.kubeconfigPath ?? ''
  );
  // The API budget adapts here as in AWS, its state in this process.
  const budget = new MemoryRequestBudget({ clock: systemClock });
  const connector = createLocalConnector({ budget, logger });
  const connect = (r: ClusterRecord) => connector.connect(r);
  if (options.kubeconfig)
    await confirmRealCluster(record, options, connect, say);
  const connection = await connect(record);
  if (options.kubeconfig && record.ownership === 'apps.dsr.dev/v1beta1') {
    await requireOwnedKind(connection);
  }
  const runtime = new LocalRuntime({ record, connection, logger, budget });
  runtime.start();
  say(
    `watching ${serverOfRecord(record)} (ownership ${record.ownership}) — Ctrl-C to stop`
  );
  const stopProgress = screen.showProgress(connection.watch, runtime.metrics);

  let stopping: Promise<void> | undefined;
  /** Stops once, whichever of Ctrl-C, SIGTERM, SIGHUP or a closed pipe came first. */
  const shutdown = (): Promise<void> =>
    (stopping ??= (async () => {
      stopProgress();
      say('stopping…');
      await runtime.stop();
      connection.close();
      await local?.stop();
      say('stopped');
      process.exit(0);
    })());
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  process.once('SIGHUP', shutdown);
  // The pipe's reader went away (`npm start | head`): stop and clean up.
  process.stdout.on('error', () => void shutdown());
};
