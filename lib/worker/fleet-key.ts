/**
 * Fleet rollout keys (`fleet:<policy>`) on the reconcile side: the same
 * processKey as a DaemonSet key (dirty mark, backoff, timers), with the
 * fleet sync in place of a cluster's. No cluster session, breaker or slot
 * applies: the fleet sync reads only the state table.
 */

import { ApiErrorReason, KubeApiError } from '../errors.js';
import type { RolloutPhase } from '../fleet/fleet-rollout-state.js';
import type {
  Clock,
  Logger,
  MetricsSink,
  WorkQueue,
  WorkQueueLedger,
} from '../ports/index.js';
import { StoreFleetMembership } from '../sync/fleet-membership.js';
import type { FleetSyncDeps } from '../sync/sync-fleet-rollout.js';
import { syncFleetRollout } from '../sync/sync-fleet-rollout.js';
import { processKey } from './process-key.js';
import { reportSync } from './report-sync.js';

/** Where fleet rollouts keep their state (absent: they do not run). */
export type FleetOptions = Pick<
  FleetSyncDeps,
  'store' | 'registry' | 'unknownAfterMs'
>;

/** Returns the member side of fleet rollouts, when they are configured. */
export const fleetMembershipOf = (o: {
  fleet?: FleetOptions;
  queue: WorkQueue;
}): StoreFleetMembership | undefined =>
  o.fleet && new StoreFleetMembership({ store: o.fleet.store, queue: o.queue });

/** The cluster dimension of a fleet sync's metric. */
export const FLEET_METRIC_CLUSTER = 'fleet';

/** Syncs fleet rollout `name` once, as processKey runs a DaemonSet key. */
export const reconcileFleetKey = async (
  o: {
    fleet?: FleetOptions;
    ledger: WorkQueueLedger;
    queue: WorkQueue;
    clock: Clock;
    metrics: MetricsSink;
  },
  key: string,
  name: string,
  records: readonly { sentAtMs: number }[],
  logger: Logger
): Promise<void> => {
  if (o.fleet === undefined) {
    logger.error(
      'fleet rollout key, but fleet rollouts are not configured; dropped'
    );
    return;
  }
  const { fleet } = o;
  const started = o.clock.now();
  let phase: RolloutPhase | undefined;
  const result = await processKey(key, {
    ledger: o.ledger,
    queue: o.queue,
    logger,
    sync: async () => {
      const synced = await syncFleetRollout(name, {
        ...fleet,
        queue: o.queue,
        clock: o.clock,
        logger,
      });
      phase = synced.phase;
      return synced;
    },
  });
  if (phase !== undefined) o.metrics.recordFleetRollout(name, phase);
  reportSync(
    o,
    { cluster: FLEET_METRIC_CLUSTER, records, started, result },
    { creates: 0, deletes: 0, logger }
  );
};

/**
 * Runs a member DaemonSet's sync; when its cluster gave no HTTP answer, the
 * key's fleet rollout hears so (its cluster counts Unknown at once).
 */
export const reportingUnreachable = async <T>(
  membership: Pick<StoreFleetMembership, 'reportUnreachable'> | undefined,
  key: string,
  clock: Clock,
  sync: () => Promise<T>
): Promise<T> => {
  try {
    return await sync();
  } catch (e) {
    if (
      membership &&
      e instanceof KubeApiError &&
      e.reason === ApiErrorReason.Unreachable
    ) {
      await membership
        .reportUnreachable(key, clock.now())
        .catch(() => undefined);
    }
    throw e;
  }
};
