/**
 * The API server's raw limit, the fourth contender: N pods POSTed with
 * `spec.nodeName` set (no scheduler, no controller, no rate limit; 64
 * requests in flight, the admin client), timed until all are available —
 * what no DaemonSet controller can beat on this test bed. Then its rolling
 * update (raw-rollout.ts).
 */

import type { KubeHttp } from '#lib/adapters/kube/kube-http.js';
import { sleep } from '#lib/bridge/resource-watch.js';
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
import { countingWrites } from './controller-writes.js';
import { say } from './markdown.js';
import { inFlightLimit, podBody } from './raw-pods.js';
import { rollOutRaw } from './raw-rollout.js';
import { OLD_IMAGE, type RolloutResult } from './rollout.js';

const POLL_MS = 250;
const TIMEOUT_MS = 10 * 60_000;
/** Time for the writes that follow the rollout (KWOK's final deletes), as the controllers get. */
const SETTLE_MS = 5_000;

/** One raw run's results. */
export interface RawRun {
  nodes: number;
  /** All pods POSTed, from the first POST. */
  createMs: number;
  /** All pods available, from the first POST. */
  convergeMs: number;
  series: [number, number][];
  /** Absent in data written before rollouts were measured. */
  rollout?: RolloutResult;
}

/** POSTs a pod per node, IN_FLIGHT at a time. */
const postAll = async (
  admin: KubeHttp,
  ns: string,
  nodes: readonly string[]
) => {
  const limit = inFlightLimit();
  await Promise.all(
    nodes.map((node) =>
      limit(() =>
        admin.request('create pod', 'POST', `/api/v1/namespaces/${ns}/pods`, {
          body: podBody(node, OLD_IMAGE),
        })
      )
    )
  );
};

/** Runs the raw create loop on `n` fresh nodes, then its rolling update. */
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
    const rollout = await countingWrites(
      admin,
      () => rollOutRaw(admin, ns, nodes),
      () => sleep(SETTLE_MS)
    );
    say(`raw: ${n} pods replaced in ${rollout.ms} ms`);
    return { nodes: n, createMs, convergeMs, series, rollout };
  } finally {
    await cleanUpRun(admin, ns, nodes);
  }
};
