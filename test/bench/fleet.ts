/**
 * The fleet bench: many clusters on one machine, one emulated stack. Healthy
 * clusters are real — each its own kube-apiserver, kube-scheduler and KWOK
 * on one shared etcd, under its own `--etcd-prefix` — and the sick ones are
 * dead, slow and 429-answering endpoints (sick-endpoints.ts), all registered
 * in watch mode, their keys queued every 10 s. It measures how long a
 * template change takes to converge on every healthy cluster at once
 * (median, p95) with no sick neighbour, with them, and while one huge
 * cluster converges a DaemonSet of its own; and it counts what the bridge
 * did meanwhile.
 */
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { abortableSleep } from '#lib/bridge/abortable-sleep.js';
import { createNodes } from '#lib/local-cluster/simulated-nodes.js';
import type { ControlPlane } from '../../lib/local-cluster/control-plane.js';
import {
  isConverged,
  setAgentImage,
} from '../integration/serverless/cluster-state.js';
import {
  eventually,
  ServerlessStack,
} from '../integration/serverless/stack.js';
import {
  createAgentDaemonSet,
  createNamespace,
} from '../testbed/kube-fixtures.js';
import {
  createNodesInBatches,
  startBenchTestbed,
  startTenant,
} from './bench-testbed.js';
import { markdownTable, percentile, say, seconds } from './markdown.js';
import { type Sickness, startSickEndpoints } from './sick-endpoints.js';

/** The fleet's shape. */
export interface FleetBenchOptions {
  /** Real clusters (API server each) whose latency is measured. */
  healthy: number;
  /** Dead, slow and throttled endpoints, a third each. */
  sick: number;
  /** Nodes of the huge cluster (0: no huge phase). */
  hugeNodes: number;
  /** Template changes per phase (each on every healthy cluster at once). */
  rounds: number;
  nodesPerCluster: number;
}

const NS = 'fleet';
const SELECTOR = { fleet: 'yes' };
const CONVERGE_TIMEOUT_MS = 5 * 60_000;
/**
 * How often each sick cluster's key is queued again. A dead cluster's
 * bridge brings no event, so its keys come only from timers and the
 * breaker's own requeues; every 10 s is already more than that.
 */
const POKE_MS = 10_000;
/** Reconcilers of the emulated stack (20 deployed). */
const RECONCILERS = 8;

interface HealthyCluster {
  id: string;
  http: KubeHttp;
  nodes: string[];
}

interface Phase {
  name: string;
  samplesMs: number[];
}

/** Runs the fleet bench; returns its Markdown section. */
export const runFleetBench = async (o: FleetBenchOptions): Promise<string> => {
  const bed = await startBenchTestbed({ aws: true });
  const tenants: ControlPlane[] = [];
  const clusters: HealthyCluster[] = [];
  const sickEndpoints = await startSickEndpoints();
  let stack: ServerlessStack | undefined;
  let poke: NodeJS.Timeout | undefined;
  const started = Date.now();
  const tenant = async (prefix: string) => {
    const cp = await startTenant(bed, prefix);
    tenants.push(cp);
    return cp;
  };
  try {
    const emulators = bed.emulators;
    if (!emulators) throw new Error('fleet bench: no AWS emulators');
    say(`fleet: starting ${o.healthy} API servers on one etcd`);
    const planes = [bed.controlPlane];
    for (let i = 1; i < o.healthy; i++) planes.push(await tenant(`fleet-${i}`));
    stack = await ServerlessStack.start({
      kubeconfigPath: bed.controlPlane.kubeconfigPath,
      endpoints: {
        dynamodb: emulators.dynamodbEndpoint,
        sqs: emulators.sqsEndpoint,
      },
      reconcileConcurrency: RECONCILERS,
      bridgeWatchSeconds: 30,
    });
    const s = stack;
    for (const [i, cp] of planes.entries()) {
      const id = i === 0 ? s.cluster : `fleet-${i}`;
      if (i > 0) await s.registerCluster(id, cp.kubeconfigPath);
      const http = cp.http();
      await createNamespace(http, NS);
      const nodes = await createNodes(http, o.nodesPerCluster, {
        prefix: `c${i}-`,
        labels: SELECTOR,
      });
      await createAgentDaemonSet(http, NS, SELECTOR, 'agent:1', {
        updateStrategy: {
          type: 'RollingUpdate',
          rollingUpdate: { maxUnavailable: o.nodesPerCluster },
        },
      });
      clusters.push({ id, http, nodes });
    }
    await Promise.all(
      clusters.map((c) =>
        eventually(
          `${c.id} converged`,
          () => isConverged(c.http, NS, c.nodes),
          CONVERGE_TIMEOUT_MS,
          250
        )
      )
    );
    say(`fleet: ${clusters.length} healthy clusters converged`);
    let image = 1;
    const roll = async (): Promise<number[]> => {
      image++;
      const want = `agent:${image}`;
      return Promise.all(
        clusters.map(async (c) => {
          await setAgentImage(c.http, NS, want);
          return eventually(
            `${c.id} rolled to ${want}`,
            () => isConverged(c.http, NS, c.nodes, want),
            CONVERGE_TIMEOUT_MS,
            100
          );
        })
      );
    };
    const phases: Phase[] = [];
    const measure = async (name: string) => {
      const samplesMs: number[] = [];
      for (let r = 0; r < o.rounds; r++) samplesMs.push(...(await roll()));
      phases.push({ name, samplesMs });
      say(`fleet: ${name}: p50 ${percentile(samplesMs, 50)} ms`);
    };
    await roll(); // warm-up, not counted
    await measure('no sick neighbour');

    const kinds: Sickness[] = ['dead', 'slow', 'throttled'];
    const sickIds: string[] = [];
    for (let i = 0; i < o.sick; i++) {
      const kind = kinds[i % kinds.length] as Sickness;
      const id = `sick-${kind}-${i}`;
      sickIds.push(id);
      await s.registerCluster(id, sickEndpoints.kubeconfigPath(kind));
    }
    const runsBefore = s.bridgeRuns.flat().length;
    poke = setInterval(() => {
      for (const id of sickIds) {
        void s.wiring.bridge.queue
          .add(`${id}/${NS}/agent`)
          .catch(() => undefined);
      }
    }, POKE_MS);
    const sickSince = Date.now();
    // At once: every sick cluster's first calls still hang until their
    // request timeout (30 s) before a breaker can open.
    await measure(`onset: ${o.sick} neighbours just turned sick`);
    await abortableSleep(Math.max(0, sickSince + 60_000 - Date.now()));
    await measure(`${o.sick} sick neighbours, a minute on`);

    let huge = '';
    if (o.hugeNodes > 0) {
      const cp = await tenant('fleet-huge');
      const http = cp.http();
      await createNamespace(http, NS);
      const nodes = await createNodesInBatches(http, o.hugeNodes, {
        prefix: 'huge-',
        labels: SELECTOR,
      });
      await s.registerCluster('fleet-huge', cp.kubeconfigPath);
      await abortableSleep(5_000);
      const t0 = Date.now();
      await createAgentDaemonSet(http, NS, SELECTOR);
      const hugeDone = eventually(
        'huge converged',
        () => isConverged(http, NS, nodes),
        CONVERGE_TIMEOUT_MS * 2,
        1_000
      ).then(() => Date.now() - t0);
      await measure(`${o.sick} sick + a ${o.hugeNodes}-node DaemonSet create`);
      huge = `The huge cluster's DaemonSet (${o.hugeNodes} nodes) converged in ${seconds(await hugeDone)} s.`;
      http.close();
    }
    clearInterval(poke);
    const runs = s.bridgeRuns.flat().slice(runsBefore);
    const outcome = (cluster: (id: string) => boolean, what: string) =>
      runs.filter((r) => cluster(r.cluster) && r.outcome === what).length;
    const isSick = (id: string) => id.startsWith('sick-');
    return [
      `### Fleet: ${o.healthy} real clusters, ${o.sick} sick neighbours (${seconds(Date.now() - started)} s)`,
      '',
      `Each healthy cluster: its own kube-apiserver, kube-scheduler and KWOK on one shared etcd, ${o.nodesPerCluster} nodes, one DaemonSet rolled with maxUnavailable ${o.nodesPerCluster}; all clusters rolled at once, ${o.rounds} times per phase. Sick neighbours: ${o.sick / 3} dead, ${o.sick / 3} slow, ${o.sick / 3} answering 429, registered in watch mode, each DaemonSet key queued every ${POKE_MS / 1_000} s. Emulated stack (one process, with the API servers and emulators on the same 2 cores): dispatcher every 1 s, ${RECONCILERS} reconcilers.`,
      '',
      markdownTable(
        ['phase', 'samples', 'p50 (ms)', 'p95 (ms)', 'max (ms)'],
        phases.map((p) => [
          p.name,
          p.samplesMs.length,
          percentile(p.samplesMs, 50),
          percentile(p.samplesMs, 95),
          Math.max(...p.samplesMs),
        ])
      ),
      '',
      huge,
      '',
      `Bridge runs from the sick clusters' registration on: sick failed ${outcome(isSick, 'failed')}, healthy done ${outcome((id) => !isSick(id), 'done')}, healthy failed ${outcome((id) => !isSick(id), 'failed')}; requests the slow server received ${sickEndpoints.requests.slow}, the 429 server ${sickEndpoints.requests.throttled}; process RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB.`,
    ].join('\n');
  } finally {
    if (poke) clearInterval(poke);
    for (const c of clusters) c.http.close();
    await stack?.stop();
    await sickEndpoints.stop();
    for (const t of tenants.reverse()) await t.stop();
    await bed.stop();
  }
};
