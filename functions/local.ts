/**
 * `npm start`: the product in one process — the watch-bridge and reconcile
 * workers joined by the in-process work queue, state in memory — against the current
 * kubeconfig context — or, when none is given, against the project's own
 * local control plane with simulated nodes and a sample DaemonSet. Prints
 * DaemonSet progress until Ctrl-C.
 *
 *   npm start                          # local control plane, 5 KWOK nodes
 *   npm start -- --kubeconfig ~/.kube/config [--context NAME]
 */

import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { serverOfRecord } from '../lib/adapters/kube/kube-config-for-cluster.js';
import { MemoryRequestBudget } from '../lib/adapters/memory/memory-request-budget.js';
import { systemClock } from '../lib/adapters/system-clock.js';
import { findRivalController } from '../lib/cli/check-ownership.js';
import { formatDaemonSetTable } from '../lib/cli/daemon-set-table.js';
import { startLocalCluster } from '../lib/local-cluster/local-cluster.js';
import type { ClusterRecord, Logger } from '../lib/ports/index.js';
import type { DaemonSet } from '../lib/reconcile/k8s/types.js';
import {
  createLocalConnector,
  LocalRuntime,
} from '../lib/wiring/local-runtime.js';

const USAGE = `usage: npm start [-- [--kubeconfig PATH [--context NAME] [--yes]] [--nodes N]]

  (no option)          start the local control plane (5 KWOK nodes and a
                       sample DaemonSet) and reconcile it; $KUBECONFIG is
                       never used implicitly
  --kubeconfig PATH    reconcile the cluster of that kubeconfig instead
                       (its own DaemonSet controller must be off)
  --context NAME       its context (default: the current one)
  --yes                do not ask before reconciling that cluster
  --nodes N            simulated nodes of the local control plane (default 5)
  -h, --help           this text
`;

const parsed = (() => {
  try {
    return parseArgs({
      options: {
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        nodes: { type: 'string', default: '5' },
        yes: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    // One clear line, never a stack trace (e.g. an unknown option).
    process.stderr.write(
      `error: ${(e as Error).message}\nSee 'npm start -- --help'.\n`
    );
    process.exit(2);
  }
})();
if (parsed.values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const { values } = parsed;

/** Lines of the progress table on screen (redrawn in place on a terminal). */
let drawn = 0;
/** Prints a line; a closed pipe (e.g. `| head`) must not crash the stop. */
const write = (text: string) => {
  try {
    process.stdout.write(text);
  } catch {
    // EPIPE: the reader went away; shutdown still cleans up.
  }
};
const say = (line: string) => {
  drawn = 0;
  write(`${line}\n`);
};
const logger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (m, f) => say(`warn: ${m} ${JSON.stringify(f ?? {})}`),
  error: (m, f) => say(`error: ${m} ${JSON.stringify(f ?? {})}`),
};

// Only an explicit --kubeconfig leaves the local control plane: most
// platform engineers export KUBECONFIG, and it may name production.
const kubeconfigPath = values.kubeconfig;
const local = kubeconfigPath
  ? undefined
  : await startLocalCluster(Number(values.nodes), say);
const record: ClusterRecord = {
  id: 'local',
  endpoint: '',
  caData: '',
  auth: {
    type: 'kubeconfig',
    path: kubeconfigPath ?? local?.kubeconfigPath ?? '',
    ...(values.context ? { context: values.context } : {}),
  },
  ownership: 'apps/v1',
  bridgeMode: 'watch',
};
// The API budget adapts here as in AWS, its state in this process.
const budget = new MemoryRequestBudget({ clock: systemClock });
const connector = createLocalConnector({ budget, logger });
if (kubeconfigPath) await confirmRealCluster(record);
const connection = await connector.connect(record);
/**
 * Before reconciling a real cluster: names it, refuses one where another
 * DaemonSet controller is active, and asks (or takes --yes).
 */
async function confirmRealCluster(target: ClusterRecord): Promise<void> {
  const context = values.context ?? '(current context)';
  say(`cluster: ${serverOfRecord(target)}, context ${context}`);
  const rival = await findRivalController(target, {
    connect: (r) => connector.connect(r),
    timeoutMs: 5_000,
  });
  if (rival.found === true) {
    process.stderr.write(`error: ${rival.problem}\n`);
    process.exit(1);
  }
  if (rival.found === undefined) say(`warning: ${rival.reason}`);
  if (values.yes) return;
  if (!process.stdin.isTTY) {
    process.stderr.write(
      'error: this reconciles every DaemonSet of that cluster; pass --yes to go on\n'
    );
    process.exit(2);
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const answer = await rl.question('reconcile every DaemonSet there? [y/N] ');
  rl.close();
  if (answer.trim().toLowerCase() !== 'y') {
    say('nothing done');
    process.exit(0);
  }
}

const controller = new LocalRuntime({ record, connection, logger, budget });
controller.start();
say(`watching ${serverOfRecord(record)} — Ctrl-C to stop`);

const tty = process.stdout.isTTY === true;
let lastKey = '';
const report = setInterval(async () => {
  const items = await connection.watch
    .list<DaemonSet>('daemonSets')
    .then((l) => l.items)
    .catch(() => []);
  const m = controller.metrics;
  const lines = [
    `${m.syncs} syncs, ${m.creates} pods created, ${m.deletes} deleted`,
    ...formatDaemonSetTable(items, Date.now()),
  ];
  if (tty) {
    // Like `kubectl get ds -w`, but in place: move up over the last table.
    write(`${drawn > 0 ? `\x1b[${drawn}A\x1b[J` : ''}${lines.join('\n')}\n`);
    drawn = lines.length;
    return;
  }
  // Through a pipe, a new table only when pods or status changed (not AGE,
  // not a sync that changed nothing).
  const key = JSON.stringify([
    m.creates,
    m.deletes,
    items.map((ds) => [ds.metadata?.name, ds.status]),
  ]);
  if (key !== lastKey) say(lines.join('\n'));
  lastKey = key;
}, 1_000);

let stopping: Promise<void> | undefined;
/** Stops once, whichever of Ctrl-C, SIGTERM, SIGHUP or a closed pipe came first. */
const shutdown = (): Promise<void> =>
  (stopping ??= (async () => {
    clearInterval(report);
    say('stopping…');
    await controller.stop();
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
