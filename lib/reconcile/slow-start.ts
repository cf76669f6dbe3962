/**
 * Ports the guard rails of `syncNodes` (pkg/controller/daemon/
 * daemon_controller.go) and `SlowStartInitialBatchSize`
 * (pkg/controller/controller_utils.go), and carries a proven batch size
 * from one sync of a key to its next.
 *
 * Upstream starts every sync at 1 ("the next controller resync will retry
 * the slow start process"): at 5,000 nodes that is 20 syncs of 250 creates,
 * each waiting for eight sequential rounds. Here a key whose last sync,
 * recently, created every pod it tried starts at twice the largest batch it
 * proved, capped: a wrong carry (quota met since) costs at most one batch of
 * SLOW_START_CARRY_CAP failed creates. Any failed create resets to
 * upstream's behaviour.
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

/** How long a proven batch size is carried to the key's next sync. */
export const SLOW_START_CARRY_MS = 30_000;

/** The largest first batch a carried proof allows. */
export const SLOW_START_CARRY_CAP = 64;

/** The largest create batch a key's sync completed without a failure. */
export interface SlowStartProof {
  batch: number;
  atMs: number;
}

/** Returns the create batch sizes for `count` creates, starting at `first`. */
export const slowStartBatchSizes = (
  count: number,
  first = SLOW_START_INITIAL_BATCH_SIZE
): number[] => {
  const sizes: number[] = [];
  let pos = 0;
  let batch = Math.min(count, first);
  while (pos < count) {
    sizes.push(batch);
    pos += batch;
    batch = Math.min(2 * batch, count - pos);
  }
  return sizes;
};

/** Returns the first batch of a sync, given the key's last proof. */
export const firstSlowStartBatch = (
  proof: SlowStartProof | undefined,
  nowMs: number
): number => {
  if (proof === undefined || nowMs - proof.atMs > SLOW_START_CARRY_MS) {
    return SLOW_START_INITIAL_BATCH_SIZE;
  }
  return Math.max(
    SLOW_START_INITIAL_BATCH_SIZE,
    Math.min(2 * proof.batch, SLOW_START_CARRY_CAP)
  );
};

/** One create round of a sync: its size and whether any create failed. */
export interface SlowStartRound {
  size: number;
  failed: boolean;
}

/**
 * Returns what a sync's rounds prove: the largest round, when none failed;
 * undefined (start at 1 next time) after any failure.
 */
export const nextSlowStartProof = (
  rounds: readonly SlowStartRound[],
  nowMs: number
): SlowStartProof | undefined => {
  if (rounds.length === 0 || rounds.some((r) => r.failed)) return undefined;
  return { batch: Math.max(...rounds.map((r) => r.size)), atMs: nowMs };
};
