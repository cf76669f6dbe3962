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
import { parseArgs } from 'node:util';
import { ClusterConnector } from '../lib/adapters/kube/kube-cluster-connector.js';
import { serverOfRecord } from '../lib/adapters/kube/kube-config-for-cluster.js';
import { systemClock } from '../lib/adapters/system-clock.js';
import { startLocalCluster } from '../lib/local-cluster/local-cluster.js';
import type { ClusterRecord, Logger } from '../lib/ports/index.js';
import type { DaemonSet } from '../lib/reconcile/k8s/types.js';
import { LocalRuntime } from '../lib/wiring/local-runtime.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    nodes: { type: 'string', default: '5' },
  },
});

const say = (line: string) => process.stdout.write(`${line}\n`);
const logger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (m, f) => say(`warn: ${m} ${JSON.stringify(f ?? {})}`),
  error: (m, f) => say(`error: ${m} ${JSON.stringify(f ?? {})}`),
};

const kubeconfigPath = values.kubeconfig ?? process.env.KUBECONFIG;
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
const connection = await new ClusterConnector({
  allowKubeconfigFiles: true,
  clock: systemClock,
  logger,
}).connect(record);
const controller = new LocalRuntime({ record, connection, logger });
controller.start();
say(`watching ${serverOfRecord(record)} — Ctrl-C to stop`);

let last = '';
const report = setInterval(async () => {
  const list = await connection.watch
    .list<DaemonSet>('daemonSets')
    .then((l) => l.items)
    .catch(() => []);
  const rows = list.map((ds) => {
    const s = ds.status;
    return `  ${ds.metadata?.namespace}/${ds.metadata?.name}  desired ${s?.desiredNumberScheduled ?? 0}  current ${s?.currentNumberScheduled ?? 0}  ready ${s?.numberReady ?? 0}  up-to-date ${s?.updatedNumberScheduled ?? 0}  available ${s?.numberAvailable ?? 0}`;
  });
  const m = controller.metrics;
  const text = [
    `DaemonSets (${m.syncs} syncs, ${m.creates} pods created, ${m.deletes} deleted):`,
    ...rows,
  ].join('\n');
  if (text !== last) say(text);
  last = text;
}, 1_000);

const shutdown = async () => {
  clearInterval(report);
  say('stopping…');
  await controller.stop();
  connection.close();
  await local?.stop();
  say('stopped');
  process.exit(0);
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
