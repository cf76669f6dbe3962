/**
 * Guards the Reconciler runs before a key's sync: a redelivered message's
 * note (its dead attempt's expectations are dropped), and the fences of a
 * cluster or DaemonSet another controller writes.
 */
import { parseDaemonSetKey } from '../keys.js';
import { DAEMON_SET_FENCE_MS } from '../policy/fight-detection.js';
import type {
  Clock,
  Logger,
  WorkQueue,
  WorkQueueLedger,
} from '../ports/index.js';
import type { FightGuard } from './fight-guard.js';

/**
 * Returns whether the key's cluster or DaemonSet is fenced (then nothing
 * is done). A fenced cluster's keys stay marked queued (no invocation per
 * event of the other controller; an unfence queues them anew). A fenced
 * DaemonSet is looked at again when its fence ends.
 */
export const skipIfFenced = async (
  o: { clock: Clock; ledger: WorkQueueLedger; queue: WorkQueue },
  fights: FightGuard,
  key: string,
  logger: Logger
): Promise<boolean> => {
  const fence = await fights.fenced(key);
  if (fence === undefined) return false;
  const { cluster } = parseDaemonSetKey(key);
  logger.error(
    `${fence.scope === 'cluster' ? 'cluster' : 'DaemonSet'} fenced: not acting (another controller is active)`,
    { cluster, reason: fence.reason }
  );
  if (fence.scope === 'daemonSet') {
    const { clock, ledger, queue } = o;
    await ledger.beginSync(key);
    await queue.addAfter(
      key,
      Math.max(1_000, fence.fencedAtMs + DAEMON_SET_FENCE_MS - clock.now())
    );
  }
  return true;
};

/**
 * Notes that an attempt of the key died (a record received before): its
 * expectations are dropped by the key's next sync, whichever message
 * carries it (this attempt may requeue the key without a sync, its sync
 * may fail, or it may die too).
 */
export const noteRedelivery = async (
  ledger: WorkQueueLedger,
  key: string,
  records: readonly { receiveCount: number }[],
  logger: Logger
): Promise<void> => {
  if (!records.some((r) => r.receiveCount > 1)) return;
  logger.warn(
    'redelivered: the previous attempt died; dropping its expectations'
  );
  await ledger.requireLatest(key);
};
