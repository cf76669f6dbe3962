/**
 * What the raw contender sends the API server: pods placed on their node
 * (bound by `spec.nodeName`, or through kube-scheduler), at most IN_FLIGHT
 * requests at a time.
 */
import { replaceDaemonSetPodNodeNameNodeAffinity } from '#lib/reconcile/k8s/node-affinity.js';

/** Requests in flight at once. */
export const IN_FLIGHT = 64;

/**
 * How a raw pod reaches its node: bound by `spec.nodeName`, or left to
 * kube-scheduler by the node affinity a DaemonSet controller sets since
 * Kubernetes 1.12 (upstream's and this product's path).
 */
export type RawPlacement = 'nodeName' | 'scheduler';

/** Returns the pod spec fields that put a pod on `node`. */
const placedOn = (node: string, placement: RawPlacement) =>
  placement === 'nodeName'
    ? { nodeName: node }
    : { affinity: replaceDaemonSetPodNodeNameNodeAffinity(undefined, node) };

/** Returns a pod of `image` placed on `node`, labelled as the agent's. */
export const podBody = (
  node: string,
  image: string,
  placement: RawPlacement = 'nodeName'
) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { generateName: 'agent-', labels: { app: 'agent' } },
    spec: { ...placedOn(node, placement), containers: [{ name: 'c', image }] },
  });

/**
 * Returns a runner of tasks that starts each as soon as fewer than `limit`
 * run, in the order they came (a finishing task hands its slot on).
 */
export const inFlightLimit = (limit = IN_FLIGHT) => {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running < limit) running++;
    else await new Promise<void>((start) => waiting.push(start));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
};
