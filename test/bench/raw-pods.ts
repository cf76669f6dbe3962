/**
 * What the raw contender sends the API server: pods bound to their node by
 * `spec.nodeName`, at most IN_FLIGHT requests at a time.
 */

/** Requests in flight at once. */
export const IN_FLIGHT = 64;

/** Returns a pod of `image` bound to `node`, labelled as the agent's. */
export const podBody = (node: string, image: string) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { generateName: 'agent-', labels: { app: 'agent' } },
    spec: { nodeName: node, containers: [{ name: 'c', image }] },
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
