/**
 * The API server's raw limit, the fourth contender: N pods POSTed with
 * `spec.nodeName` set (no scheduler, no controller, no rate limit; 64
 * requests in flight, the admin client), timed until all are available —
 * what no DaemonSet controller can beat on this test bed.
 */
import type { KubeHttp } from '#lib/adapters/kube/kube-http.js';
import { waitFor } from '../../lib/local-cluster/processes.js';
import {
  isPodAvailable,
  livePodsOf,
} from '../integration/serverless/cluster-state.js';
import { createNamespace } from '../testbed/kube-fixtures.js';
import {
  type BenchTestbed,
  cleanUpRun,
  createNodesInBatches,
} from './bench-testbed.js';
import { say } from './markdown.js';

/** Requests in flight at once. */
const IN_FLIGHT = 64;
const POLL_MS = 250;
const TIMEOUT_MS = 10 * 60_000;

/** One raw run's results. */
export interface RawRun {
  nodes: number;
  /** All pods POSTed, from the first POST. */
  createMs: number;
  /** All pods available, from the first POST. */
  convergeMs: number;
  series: [number, number][];
}

const podBody = (node: string) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { generateName: 'agent-', labels: { app: 'agent' } },
    spec: { nodeName: node, containers: [{ name: 'c', image: 'agent:1' }] },
  });

/** POSTs a pod per node, IN_FLIGHT at a time. */
const postAll = async (
  admin: KubeHttp,
  ns: string,
  nodes: readonly string[]
) => {
  let next = 0;
  const worker = async () => {
    while (next < nodes.length) {
      const node = nodes[next++] as string;
      await admin.request(
        'create pod',
        'POST',
        `/api/v1/namespaces/${ns}/pods`,
        {
          body: podBody(node),
        }
      );
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
};

/** Runs the raw create loop on `n` fresh nodes. */
export const runRaw = async (
  testbed: BenchTestbed,
  n: number,
  run: number
): Promise<RawRun> => {
  const { admin } = testbed;
  const ns = `bench-raw-${n}-${run}`;
  await createNamespace(admin, ns);
  const nodes = await createNodesInBatches(admin, n, {
    prefix: `${ns}-`,
    labels: { bench: ns },
  });
  try {
    const started = Date.now();
    const series: [number, number][] = [[0, 0]];
    const posting = postAll(admin, ns, nodes).then(() => Date.now() - started);
    await waitFor(
      `${n} raw pods available`,
      async () => {
        const pods = await livePodsOf(admin, ns, 'agent');
        const available = pods.filter(isPodAvailable).length;
        series.push([Date.now() - started, available]);
        return available >= n ? true : undefined;
      },
      TIMEOUT_MS,
      POLL_MS
    );
    const convergeMs = Date.now() - started;
    const createMs = await posting;
    say(
      `raw: ${n} pods posted in ${createMs} ms, available in ${convergeMs} ms`
    );
    return { nodes: n, createMs, convergeMs, series };
  } finally {
    await cleanUpRun(admin, ns, nodes);
  }
};
