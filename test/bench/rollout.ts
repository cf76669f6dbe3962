/**
 * The rolling update every contender is timed on once its create has
 * converged (issue #12): the agent's image changes from agent:1 to agent:2
 * under RollingUpdate with maxUnavailable 10 %, and the clock runs until
 * the rollout is complete — every pod on the new template and available,
 * and the DaemonSet's status says so for the current generation.
 */
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import type { Pod } from '#lib/reconcile/k8s/types.js';
import { waitFor } from '../../lib/local-cluster/processes.js';
import {
  isConverged,
  isPodAvailable,
  livePodsOf,
  setAgentImage,
} from '../integration/serverless/cluster-state.js';

/** The update strategy the bench's DaemonSets are created with. */
export const ROLLING_UPDATE = {
  type: 'RollingUpdate',
  rollingUpdate: { maxUnavailable: '10%' },
} as const;
/** The template before and after the change. */
export const OLD_IMAGE = 'agent:1';
export const NEW_IMAGE = 'agent:2';

const POLL_MS = 250;
/** 5,000 nodes at kube-controller-manager's 20 qps take about 10 minutes. */
const TIMEOUT_MS = 30 * 60_000;

/** One contender's rolling update. */
export interface RolloutResult {
  /** From the template change until the rollout is complete. */
  ms: number;
  /** Pods on the new template and available: [ms since the change, pods]. */
  series: [number, number][];
  /** The writes in the window, from the API server's /metrics. */
  apiWrites: number;
  /** The same, by `VERB resource[/subresource]`. */
  writes: Record<string, number>;
}

/** Returns whether `pod` runs `image` and is available. */
export const isUpdatedAndAvailable = (pod: Pod, image = NEW_IMAGE): boolean =>
  isPodAvailable(pod) && pod.spec?.containers[0]?.image === image;

/**
 * Changes the agent's image in `ns`; returns the ms until the DaemonSet
 * rolled out on `nodes` and the updated, available pods at each poll.
 */
export const timeToRollOut = async (
  admin: KubeHttp,
  ns: string,
  nodes: readonly string[]
): Promise<{ ms: number; series: [number, number][] }> => {
  const started = Date.now();
  const series: [number, number][] = [[0, 0]];
  await setAgentImage(admin, ns, NEW_IMAGE);
  await waitFor(
    `rollout on ${nodes.length} nodes`,
    async () => {
      const pods = await livePodsOf(admin, ns, 'agent');
      const updated = pods.filter((p) => isUpdatedAndAvailable(p)).length;
      series.push([Date.now() - started, updated]);
      if (updated < nodes.length) return undefined;
      return (await isConverged(admin, ns, nodes, NEW_IMAGE))
        ? true
        : undefined;
    },
    TIMEOUT_MS,
    POLL_MS
  );
  return { ms: Date.now() - started, series };
};
