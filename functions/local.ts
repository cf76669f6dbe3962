/**
 * `npm start`: the whole controller in one process (watch caches, work
 * queue, sync workers) with in-process state, against the current
 * kubeconfig context — or, when none is given, against the project's own
 * local control plane with simulated nodes and a sample DaemonSet. Prints
 * DaemonSet progress until Ctrl-C.
 *
 *   npm start                          # local control plane, 5 KWOK nodes
 *   npm start -- --kubeconfig ~/.kube/config [--context NAME]
 */
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeHttp } from '../lib/adapters/kube/kube-http.js';
import type { Logger } from '../lib/ports.js';
import { InProcessController } from '../lib/runtime/in-process-controller.js';
import { kubeSyncDeps } from '../lib/runtime/kube-sync-deps.js';
import { startLocalCluster } from '../test/testbed/local-cluster.js';

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
const kc = new KubeConfig();
kc.loadFromFile(kubeconfigPath ?? local?.kubeconfigPath ?? '');
if (values.context) kc.setCurrentContext(values.context);
const http = new KubeHttp({ kubeConfig: kc });
const controller = new InProcessController({
  cluster: 'local',
  http,
  logger,
  deps: kubeSyncDeps(http, logger),
});
await controller.start();
say(`watching ${kc.getCurrentCluster()?.server} — Ctrl-C to stop`);

let last = '';
const report = setInterval(() => {
  const rows = [...controller.daemonSets.store.values()].map((ds) => {
    const s = ds.status;
    return `  ${ds.metadata?.namespace}/${ds.metadata?.name}  desired ${s?.desiredNumberScheduled ?? 0}  current ${s?.currentNumberScheduled ?? 0}  ready ${s?.numberReady ?? 0}  up-to-date ${s?.updatedNumberScheduled ?? 0}  available ${s?.numberAvailable ?? 0}`;
  });
  const text = [`DaemonSets (${controller.stats.syncs} syncs):`, ...rows].join(
    '\n'
  );
  if (text !== last) say(text);
  last = text;
}, 1_000);

const shutdown = async () => {
  clearInterval(report);
  say('stopping…');
  await controller.stop();
  http.close();
  await local?.stop();
  say('stopped');
  process.exit(0);
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
