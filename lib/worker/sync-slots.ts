/**
 * How many syncs run at once: within one batch (memory), and of one
 * cluster across every reconcile invocation (its share of the reconcilers).
 */
import { parseDaemonSetKey } from '../keys.js';
import type {
  Clock,
  ClusterSyncSlots,
  Logger,
  WorkQueue,
  WorkQueueLedger,
} from '../ports/index.js';

/**
 * A batch holds up to 10 keys. Ten parallel syncs of a 1,000-node cluster
 * peaked at 470–630 MiB (the scale review), past the 512 MB function; four
 * keep a batch near 250 MiB. Upstream runs 2 workers per controller.
 */
export const MAX_PARALLEL_SYNCS = 4;

/** A cluster's share of the reconcilers by default (a quarter of 20). */
export const MAX_SYNCS_PER_CLUSTER = 5;
/**
 * A cluster takes at most this many of a batch's slots while keys of other
 * clusters wait: four slow keys of one cluster cannot hold another
 * cluster's key behind them until the deadline.
 */
export const MAX_BATCH_SLOTS_PER_CLUSTER = 2;
/**
 * A key of a cluster at its share looks again after this, doubling with
 * each time in a row it found the share taken, up to SLOT_WAIT_MAX_MS: a
 * slow cluster's waiting keys do not spin through the queues every 2 s.
 */
export const SLOT_WAIT_MS = 2_000;
export const SLOT_WAIT_MAX_MS = 30_000;
/** A slot without a deadline (local runs) is held at most this long. */
const SLOT_HOLD_MAX_MS = 5 * 60_000;

/**
 * At most `size` tasks at once. A task waits while its cluster holds
 * MAX_BATCH_SLOTS_PER_CLUSTER of them and a task of another cluster waits
 * for the slot; otherwise tasks start in arrival order. Tasks added in one
 * turn of the event loop (a batch's keys) are weighed together.
 */
export class BatchSlots {
  #free: number;
  readonly #running = new Map<string, number>();
  readonly #waiting: { cluster: string; start: () => void }[] = [];
  #pumping = false;

  constructor(size: number) {
    this.#free = Math.max(1, size);
  }

  async run<T>(cluster: string, task: () => Promise<T>): Promise<T> {
    await new Promise<void>((start) => {
      this.#waiting.push({ cluster, start });
      if (!this.#pumping) {
        this.#pumping = true;
        queueMicrotask(() => this.#pump());
      }
    });
    try {
      return await task();
    } finally {
      this.#running.set(cluster, (this.#running.get(cluster) ?? 1) - 1);
      this.#free++;
      this.#pump();
    }
  }

  #pump(): void {
    this.#pumping = false;
    while (this.#free > 0 && this.#waiting.length > 0) {
      const under = this.#waiting.findIndex(
        (w) => (this.#running.get(w.cluster) ?? 0) < MAX_BATCH_SLOTS_PER_CLUSTER
      );
      const [next] = this.#waiting.splice(Math.max(under, 0), 1);
      if (next === undefined) return;
      this.#free--;
      this.#running.set(
        next.cluster,
        (this.#running.get(next.cluster) ?? 0) + 1
      );
      next.start();
    }
  }
}

/**
 * How often in a row each key found its cluster's share taken, as this
 * container saw it (a key may land on any container; a count unused for
 * twice the longest wait is forgotten). Taking a slot resets it.
 */
export class SlotWaits {
  readonly #counts = new Map<string, { count: number; atMs: number }>();

  /** Returns the key's next wait, and counts it. */
  next(key: string, nowMs: number): number {
    const seen = this.#counts.get(key);
    const fresh = seen && nowMs - seen.atMs <= 2 * SLOT_WAIT_MAX_MS;
    const count = fresh ? seen.count : 0;
    if (this.#counts.size > 10_000) this.#counts.clear();
    this.#counts.set(key, { count: count + 1, atMs: nowMs });
    return Math.min(SLOT_WAIT_MS * 2 ** Math.min(count, 10), SLOT_WAIT_MAX_MS);
  }

  /** Forgets the key's waits (it got a slot). */
  reset(key: string): void {
    this.#counts.delete(key);
  }
}

/** What taking a cluster's slot needs. */
export interface SlotDeps {
  /** Each cluster's share of the reconcilers (none: no limit). */
  slots?: ClusterSyncSlots;
  clock: Clock;
  ledger: Pick<WorkQueueLedger, 'beginSync'>;
  queue: Pick<WorkQueue, 'addAfter'>;
  /** Syncs of one cluster at once, fleet-wide (default MAX_SYNCS_PER_CLUSTER). */
  maxSyncsPerCluster?: number;
}

/**
 * Takes one of the cluster's reconciler slots; when its share is taken
 * (a slow cluster with many keys), requeues the key without a call.
 */
export const takeClusterSlot = async (
  o: SlotDeps,
  key: string,
  reconcileId: string,
  deadlineMs: number,
  logger: Logger,
  waits: SlotWaits
): Promise<boolean> => {
  const { slots, clock, ledger, queue } = o;
  if (slots === undefined) return true;
  const { cluster } = parseDaemonSetKey(key);
  const max = o.maxSyncsPerCluster ?? MAX_SYNCS_PER_CLUSTER;
  const untilMs = Math.min(deadlineMs, clock.now() + SLOT_HOLD_MAX_MS);
  if (await slots.acquire(cluster, reconcileId, max, untilMs)) {
    waits.reset(key);
    return true;
  }
  const retryAfterMs = waits.next(key, clock.now());
  await ledger.beginSync(key);
  await queue.addAfter(key, retryAfterMs);
  logger.warn('cluster at its share of reconcilers; key requeued', {
    cluster,
    share: max,
    retryAfterMs,
  });
  return false;
};

/** Returns the cluster a queued body names ('' for a malformed one). */
export const clusterOf = (body: string): string => {
  try {
    return parseDaemonSetKey(body).cluster;
  } catch {
    return '';
  }
};
