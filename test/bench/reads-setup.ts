/**
 * The cluster measurement 1 runs on: one namespace holding the measured
 * DaemonSet `agent` and neighbour DaemonSets (as kube-system holds several),
 * all on every node, converged by syncing through the product's read path.
 */
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { abortableSleep } from '#lib/bridge/abortable-sleep.js';
import type { Logger } from '#lib/ports/index.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import { syncDaemonSet } from '#lib/sync/sync-daemon-set.js';
import {
  createAgentDaemonSet,
  createDaemonSet,
} from '../testbed/kube-fixtures.js';
import { syncDeps } from './read-path.js';

/** Every KWOK node carries this label (kube-fixtures.ts). */
const ALL_NODES = { type: 'kwok' };
const CONVERGE_TIMEOUT_MS = 15 * 60_000;
/** Pause between the set-up syncs, for KWOK to run the new pods. */
const CONVERGE_PAUSE_MS = 1_000;

/**
 * Creates `agent` and `neighbours` more DaemonSets on every node in `ns`;
 * returns their names.
 */
export const createDaemonSets = async (
  admin: KubeHttp,
  ns: string,
  neighbours: number
): Promise<string[]> => {
  await createAgentDaemonSet(admin, ns, ALL_NODES);
  const names = ['agent'];
  for (let i = 0; i < neighbours; i++) {
    names.push(`neighbour-${i}`);
    await createDaemonSet(
      admin,
      ns,
      `neighbour-${i}`,
      ALL_NODES,
      `neighbour-${i}:1`
    );
  }
  return names;
};

/**
 * Returns whether DaemonSet `name` reports a complete, current status on `n`
 * nodes (pods per node are not checked: the namespace holds several
 * DaemonSets, and the sync computes the status from the live pods).
 */
const isStatusComplete = async (
  admin: KubeHttp,
  ns: string,
  name: string,
  n: number
) => {
  const ds = await admin.request<DaemonSet>(
    'get ds',
    'GET',
    `/apis/apps/v1/namespaces/${ns}/daemonsets/${name}`
  );
  const s = ds.status;
  return (
    s?.desiredNumberScheduled === n &&
    s.currentNumberScheduled === n &&
    s.numberReady === n &&
    s.numberAvailable === n &&
    s.updatedNumberScheduled === n &&
    (s.numberMisscheduled ?? 0) === 0 &&
    s.observedGeneration === ds.metadata?.generation
  );
};

/**
 * Syncs every DaemonSet of `ns` (keys `cluster/ns/name`) until each reports
 * `nodeCount` available pods; returns how long that took and how many
 * rounds of syncs it needed.
 */
export const convergeAll = async (
  o: {
    admin: KubeHttp;
    http: KubeHttp;
    cluster: string;
    ns: string;
    names: readonly string[];
    nodeCount: number;
  },
  logger: Logger
): Promise<{ ms: number; rounds: number }> => {
  const started = Date.now();
  const done = async () =>
    (
      await Promise.all(
        o.names.map((n) => isStatusComplete(o.admin, o.ns, n, o.nodeCount))
      )
    ).every(Boolean);
  let rounds = 0;
  while (!(await done())) {
    if (Date.now() - started > CONVERGE_TIMEOUT_MS) {
      throw new Error(`no convergence on ${o.nodeCount} nodes`);
    }
    for (const name of o.names) {
      await syncDaemonSet(
        `${o.cluster}/${o.ns}/${name}`,
        syncDeps(o.http, 'snapshot', logger)
      );
    }
    rounds++;
    await abortableSleep(CONVERGE_PAUSE_MS);
  }
  return { ms: Date.now() - started, rounds };
};
