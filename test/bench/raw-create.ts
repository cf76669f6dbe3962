/**
 * The API server's raw limit, the fourth contender: N pods POSTed with
 * `spec.nodeName` set (no scheduler, no controller, no rate limit; 64
 * requests in flight, the admin client), timed until all are available —
 * what no DaemonSet controller can beat on this test bed. Then its rolling
 * update (raw-rollout.ts). Before it, the same loop with the pods left to
 * kube-scheduler (the DaemonSet's node affinity instead of `nodeName`): the
 * limit of any controller that places pods as upstream's does, since both
 * controllers' pods wait for the scheduler's bind on the same 2 cores.
 */

import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { abortableSleep } from '#lib/bridge/abortable-sleep.js';
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
import { withCpuAccount } from './process-cpu.js';
import { inFlightLimit, podBody, type RawPlacement } from './raw-pods.js';
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
  /** The same create through kube-scheduler (absent in older data). */
  scheduled?: RawCreate;
}

/** One raw create: its pods POSTed, then available. */
export interface RawCreate {
  /** All pods POSTed, from the first POST. */
  createMs: number;
  /** All pods available, from the first POST. */
  convergeMs: number;
  series: [number, number][];
}

/** POSTs a pod per node, IN_FLIGHT at a time. */
const postAll = async (
  admin: KubeHttp,
  ns: string,
  nodes: readonly string[],
  placement: RawPlacement
) => {
  const limit = inFlightLimit();
  await Promise.all(
    nodes.map((node) =>
      limit(() =>
        admin.request('create pod', 'POST', `/api/v1/namespaces/${ns}/pods`, {
          body: podBody(node, OLD_IMAGE, placement),
        })
      )
    )
  );
};

/** POSTs a pod per node in `ns`, timed until all are available. */
const createAll = async (
  admin: KubeHttp,
  ns: string,
  nodes: readonly string[],
  placement: RawPlacement
): Promise<RawCreate> => {
  const started = Date.now();
  const series: [number, number][] = [[0, 0]];
  const posting = postAll(admin, ns, nodes, placement).then(
    () => Date.now() - started
  );
  await waitFor(
    `${nodes.length} raw pods available (${placement})`,
    async () => {
      const pods = await livePodsOf(admin, ns, 'agent');
      const available = pods.filter(isPodAvailable).length;
      series.push([Date.now() - started, available]);
      return available >= nodes.length ? true : undefined;
    },
    TIMEOUT_MS,
    POLL_MS
  );
  const convergeMs = Date.now() - started;
  const createMs = await posting;
  say(
    `raw (${placement}): ${nodes.length} pods posted in ${createMs} ms, available in ${convergeMs} ms`
  );
  return { createMs, convergeMs, series };
};

/**
 * Runs the raw create loop on `n` fresh nodes through kube-scheduler, then
 * bound by nodeName, then its rolling update.
 */
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
    const viaScheduler = `${ns}-scheduled`;
    await createNamespace(admin, viaScheduler);
    const scheduled = await withCpuAccount(`raw (scheduler): ${n} pods`, () =>
      createAll(admin, viaScheduler, nodes, 'scheduler')
    );
    await cleanUpRun(admin, viaScheduler, []);
    const bound = await withCpuAccount(`raw (nodeName): ${n} pods`, () =>
      createAll(admin, ns, nodes, 'nodeName')
    );
    const rollout = await countingWrites(
      admin,
      () =>
        withCpuAccount(`raw: ${n} pods, rollout`, () =>
          rollOutRaw(admin, ns, nodes)
        ),
      () => abortableSleep(SETTLE_MS)
    );
    say(`raw: ${n} pods replaced in ${rollout.ms} ms`);
    return { nodes: n, ...bound, rollout, scheduled };
  } finally {
    await cleanUpRun(admin, ns, nodes);
  }
};
