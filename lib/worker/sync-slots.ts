/**
 * How many syncs run at once: within one batch (memory), and of one
 * cluster across every reconcile invocation (its share of the reconcilers).
 */
import { parseDaemonSetKey } from '../keys.js';
import type { Logger } from '../ports/index.js';
import type { ReconcilerOptions } from './reconciler.js';

/**
 * A batch holds up to 10 keys. Ten parallel syncs of a 1,000-node cluster
 * peaked at 470–630 MiB (the scale review), past the 512 MB function; four
 * keep a batch near 250 MiB. Upstream runs 2 workers per controller.
 */
export const MAX_PARALLEL_SYNCS = 4;

/** A cluster's share of the reconcilers by default (a quarter of 20). */
export const MAX_SYNCS_PER_CLUSTER = 5;
/** A key of a cluster at its share looks again after this. */
const SLOT_WAIT_MS = 2_000;
/** A slot without a deadline (local runs) is held at most this long. */
const SLOT_HOLD_MAX_MS = 5 * 60_000;

/** At most `size` tasks at once; the others start in arrival order. */
export class BatchSlots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#free = Math.max(1, size);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}

/**
 * Takes one of the cluster's reconciler slots; when its share is taken
 * (a slow cluster with many keys), requeues the key without a call.
 */
export const takeClusterSlot = async (
  o: Pick<
    ReconcilerOptions,
    'slots' | 'clock' | 'ledger' | 'queue' | 'maxSyncsPerCluster'
  >,
  key: string,
  reconcileId: string,
  deadlineMs: number,
  logger: Logger
): Promise<boolean> => {
  const { slots, clock, ledger, queue } = o;
  if (slots === undefined) return true;
  const { cluster } = parseDaemonSetKey(key);
  const max = o.maxSyncsPerCluster ?? MAX_SYNCS_PER_CLUSTER;
  const untilMs = Math.min(deadlineMs, clock.now() + SLOT_HOLD_MAX_MS);
  if (await slots.acquire(cluster, reconcileId, max, untilMs)) return true;
  await ledger.beginSync(key);
  await queue.addAfter(key, SLOT_WAIT_MS);
  logger.warn('cluster at its share of reconcilers; key requeued', {
    cluster,
    share: max,
    retryAfterMs: SLOT_WAIT_MS,
  });
  return false;
};
