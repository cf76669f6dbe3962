/**
 * Ports the guard rails of `syncNodes` (pkg/controller/daemon/
 * daemon_controller.go) and `SlowStartInitialBatchSize`
 * (pkg/controller/controller_utils.go).
 */

/**
 * Most creates and most deletes one sync issues: lowered from 500 to 250 in
 * kubernetes/kubernetes#40621 so one DaemonSet cannot flood the API server.
 */
export const BURST_REPLICAS = 250;

/**
 * First slow-start batch; batches double (1, 2, 4, …) so a quota error costs
 * one request, not hundreds.
 */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

/** Returns the create batch sizes upstream uses for `count` creates. */
export const slowStartBatchSizes = (count: number): number[] => {
  const sizes: number[] = [];
  let pos = 0;
  let batch = Math.min(count, SLOW_START_INITIAL_BATCH_SIZE);
  while (pos < count) {
    sizes.push(batch);
    pos += batch;
    batch = Math.min(2 * batch, count - pos);
  }
  return sizes;
};
