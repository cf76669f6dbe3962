/**
 * The cluster session a queued key names. Poison — a malformed key, an
 * unknown cluster — would fail the same way forever: it is logged, counted
 * and dropped. A cluster whose registry record breaks the rules may be fixed
 * (`dsr clusters add --replace`): its keys are acknowledged and looked at
 * again after INVALID_RECORD_RETRY_MS, instead of failing their messages
 * until the queue dead-letters them.
 */
import { InvalidClusterRecordError } from '../cluster/record.js';
import { PoisonMessageError, TerminalError, toError } from '../errors.js';
import { parseDaemonSetKey } from '../keys.js';
import type {
  Logger,
  MetricsSink,
  WorkQueue,
  WorkQueueLedger,
} from '../ports/index.js';
import type { ClusterSession, ClusterSessions } from './cluster-sessions.js';

/** A key of a cluster with an invalid record looks again after this. */
export const INVALID_RECORD_RETRY_MS = 60_000;

/**
 * Returns the key's cluster session; undefined when the key is poison
 * (dropped) or its cluster's record is invalid (requeued), each logged and
 * counted.
 */
export const resolveSession = async (
  o: {
    sessions: Pick<ClusterSessions, 'get'>;
    ledger: WorkQueueLedger;
    queue: WorkQueue;
    metrics: MetricsSink;
  },
  key: string,
  logger: Logger
): Promise<ClusterSession | undefined> => {
  try {
    const { cluster } = parseDaemonSetKey(key);
    const session = await o.sessions.get(cluster);
    if (session === undefined) {
      throw new PoisonMessageError(
        `unknown cluster ${JSON.stringify(cluster)}`
      );
    }
    return session;
  } catch (e) {
    if (e instanceof InvalidClusterRecordError) {
      const { cluster } = parseDaemonSetKey(key);
      logger.error('cluster record invalid; key requeued', {
        cluster,
        error: e.message,
        retryAfterMs: INVALID_RECORD_RETRY_MS,
      });
      o.metrics.recordInvalidClusterRecord(cluster);
      // Cleared first, or the timer's add would coalesce into nothing.
      await o.ledger.beginSync(key);
      await o.queue.addAfter(key, INVALID_RECORD_RETRY_MS);
      return undefined;
    }
    if (!(e instanceof TerminalError)) throw e;
    logger.error('dropping message', { error: toError(e).message });
    o.metrics.recordPoison(
      e instanceof PoisonMessageError ? 'unknown-cluster' : 'malformed-key'
    );
    return undefined;
  }
};
