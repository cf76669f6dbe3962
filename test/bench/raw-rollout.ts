/**
 * The raw contender's rolling update: no controller, no rate limit, no
 * sync — a watch on the pods, and each time a new pod becomes available
 * the next node's old pod is DELETEd and a new one POSTed (IN_FLIGHT at a
 * time), never more than maxUnavailable nodes (rounded up, as upstream)
 * without an available new pod: the sliding window a DaemonSet controller
 * could at best keep, at the API server's pace.
 */
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { getScaledValueFromIntOrPercent } from '#lib/reconcile/k8s/int-or-string.js';
import type { Pod } from '#lib/reconcile/k8s/types.js';
import { inFlightLimit, podBody } from './raw-pods.js';
import {
  isUpdatedAndAvailable,
  NEW_IMAGE,
  OLD_IMAGE,
  ROLLING_UPDATE,
} from './rollout.js';

/** As the controllers' rollouts (rollout.ts). */
const TIMEOUT_MS = 30 * 60_000;

/**
 * Returns how many nodes may start their replacement now: maxUnavailable
 * less the nodes whose replacement started and has no available new pod
 * yet, at most the nodes still waiting.
 */
export const replacementsToStart = (o: {
  maxUnavailable: number;
  started: ReadonlySet<string>;
  updated: ReadonlySet<string>;
  waiting: number;
}): number => {
  let unavailable = 0;
  for (const node of o.started) if (!o.updated.has(node)) unavailable++;
  return Math.max(0, Math.min(o.waiting, o.maxUnavailable - unavailable));
};

/**
 * Replaces the agent pod of every node in `ns`; returns the ms until each
 * runs an available new pod, and those pods at each change (from the
 * watch, so without the controllers' 250-ms polling).
 */
export const rollOutRaw = async (
  admin: KubeHttp,
  ns: string,
  nodes: readonly string[]
): Promise<{ ms: number; series: [number, number][] }> => {
  const path = `/api/v1/namespaces/${ns}/pods`;
  const query = { labelSelector: 'app=agent' };
  const maxUnavailable = getScaledValueFromIntOrPercent(
    ROLLING_UPDATE.rollingUpdate.maxUnavailable,
    nodes.length
  );
  const started = Date.now();
  const series: [number, number][] = [[0, 0]];
  const listed = await admin.listWithVersion<Pod>('list pods', path, query);
  let resourceVersion = listed.resourceVersion;
  const oldPodOn = new Map(
    listed.items
      .filter((p) => p.spec?.containers[0]?.image === OLD_IMAGE)
      .map((p) => [p.spec?.nodeName, p.metadata?.name])
  );
  const updated = new Set<string>();
  const replaced = new Set<string>();
  const waiting = [...nodes];
  const limit = inFlightLimit();
  const abort = new AbortController();
  let failure: unknown;
  const replace = (node: string) =>
    limit(async () => {
      const old = oldPodOn.get(node);
      if (old !== undefined) {
        await admin.request('delete pod', 'DELETE', `${path}/${old}`);
      }
      await admin.request('create pod', 'POST', path, {
        body: podBody(node, NEW_IMAGE),
      });
    }).catch((e: unknown) => {
      failure ??= e;
      abort.abort();
    });
  const startReplacements = () => {
    const n = replacementsToStart({
      maxUnavailable,
      started: replaced,
      updated,
      waiting: waiting.length,
    });
    for (const node of waiting.splice(0, n)) {
      replaced.add(node);
      void replace(node);
    }
  };
  const timer = setTimeout(() => abort.abort(), TIMEOUT_MS);
  try {
    startReplacements();
    // A watch the server ends (its timeout) is reopened where it stopped.
    while (updated.size < nodes.length && !abort.signal.aborted) {
      for await (const event of admin.watch<Pod>(
        'watch pods',
        path,
        { ...query, resourceVersion, allowWatchBookmarks: true },
        abort.signal
      )) {
        const pod = event.object;
        resourceVersion = pod.metadata?.resourceVersion ?? resourceVersion;
        const node = pod.spec?.nodeName;
        if (node === undefined || pod.spec?.containers[0]?.image !== NEW_IMAGE)
          continue;
        const before = updated.size;
        if (event.type !== 'DELETED' && isUpdatedAndAvailable(pod)) {
          updated.add(node);
        } else updated.delete(node);
        if (updated.size !== before) {
          series.push([Date.now() - started, updated.size]);
        }
        if (updated.size >= nodes.length) break;
        startReplacements();
      }
    }
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  if (failure !== undefined) throw failure;
  if (updated.size < nodes.length) {
    throw new Error(
      `raw rollout: ${updated.size}/${nodes.length} nodes after ${TIMEOUT_MS} ms`
    );
  }
  return { ms: Date.now() - started, series };
};
