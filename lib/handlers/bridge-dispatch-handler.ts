/**
 * The bridge dispatcher's handler, run every minute by a schedule: one
 * dispatcher tick (see dispatch-bridge-turns.ts). Fails only when the
 * registry or the leases cannot be read at all; the next tick retries.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Context } from 'aws-lambda';
import {
  type BridgeDispatchDeps,
  type DispatchReport,
  dispatchBridgeTurns,
} from '../bridge/dispatch-bridge-turns.js';
import {
  type FleetWakeDeps,
  wakeFleetRollouts,
} from '../bridge/wake-fleet-rollouts.js';
import type { Config } from '../config.js';
import { toError } from '../errors.js';
import type { MetricsSink } from '../ports/index.js';
import { lambdaMiddy } from './lambda-middy.js';

/** The report as logged and returned (turns as cluster lists). */
export interface DispatchSummary {
  clusters: number;
  invalidRecords: number;
  launchedTurns: number;
  launchedClusters: string[];
  failedLaunches: number;
  failedClaims: number;
  /** Fleet rollout keys put on the work queue (wake-fleet-rollouts.ts). */
  fleetRolloutsWoken: number;
}

/** Returns the middy handler of the dispatcher function. */
export const createBridgeDispatchHandler = (o: {
  dispatch: BridgeDispatchDeps;
  /** Wakes fleet rollouts an operator changed (absent: none). */
  fleet?: FleetWakeDeps;
  config: Pick<
    Config,
    | 'bridgeWatchSeconds'
    | 'bridgeEconomySeconds'
    | 'bridgeClustersPerTurn'
    | 'bridgeNodesPerTurn'
    | 'bridgeEconomyConcurrency'
  >;
  logger: Logger;
  metrics?: Metrics;
  /** Receives the clusters' checkpoint ages (per cluster when so deployed). */
  sink?: Pick<MetricsSink, 'recordCheckpointAges'>;
  /** Tests only: a faster schedule and a shorter lease. */
  tickMs?: number;
  leaseTtlMs?: number;
}) => {
  const handler = lambdaMiddy(
    async (_event: unknown, context: Context): Promise<DispatchSummary> => {
      const report = await dispatchBridgeTurns(o.dispatch, {
        tickId: context.awsRequestId,
        watchSeconds: o.config.bridgeWatchSeconds,
        economySeconds: o.config.bridgeEconomySeconds,
        clustersPerTurn: o.config.bridgeClustersPerTurn,
        nodesPerTurn: o.config.bridgeNodesPerTurn,
        economyBurst: o.config.bridgeEconomyConcurrency,
        ...(o.tickMs ? { tickMs: o.tickMs } : {}),
        ...(o.leaseTtlMs ? { leaseTtlMs: o.leaseTtlMs } : {}),
      });
      const summary = summarize(report, await wakeFleet(o.fleet, o.logger));
      if (o.metrics) recordDispatchMetrics(o.metrics, summary);
      o.sink?.recordCheckpointAges(report.checkpointAges);
      if (
        summary.launchedTurns > 0 ||
        summary.failedLaunches > 0 ||
        summary.failedClaims > 0 ||
        summary.fleetRolloutsWoken > 0
      ) {
        o.logger.info('bridge turns launched', { ...summary });
      }
      return summary;
    }
  ).use(injectLambdaContext(o.logger, { resetKeys: true }));
  return o.metrics ? handler.use(logMetrics(o.metrics)) : handler;
};

/** Wakes fleet rollouts; a failure is logged, never fails the tick. */
const wakeFleet = async (
  fleet: FleetWakeDeps | undefined,
  logger: Logger
): Promise<number> => {
  if (fleet === undefined) return 0;
  try {
    return await wakeFleetRollouts(fleet);
  } catch (e) {
    logger.error('fleet rollouts not listed', { error: toError(e).message });
    return 0;
  }
};

const summarize = (
  r: DispatchReport,
  fleetRolloutsWoken: number
): DispatchSummary => ({
  clusters: r.clusters,
  invalidRecords: r.invalid.length,
  launchedTurns: r.launched.length,
  launchedClusters: r.launched.flatMap((t) => t.clusters.map((c) => c.cluster)),
  failedLaunches: r.failedLaunches,
  failedClaims: r.failedClaims,
  fleetRolloutsWoken,
});

/**
 * Counts one tick: RegisteredClusters, InvalidClusterRecords (skipped
 * registry items), BridgeLaunches (clusters whose run was launched) and
 * BridgeLaunchFailures (turns Lambda refused, and runs whose claim failed:
 * either way a cluster due for a run got none, which the not-bridged alarm
 * must see).
 */
export const recordDispatchMetrics = (
  metrics: Metrics,
  s: DispatchSummary
): void => {
  metrics.addMetric('RegisteredClusters', MetricUnit.Count, s.clusters);
  metrics.addMetric(
    'InvalidClusterRecords',
    MetricUnit.Count,
    s.invalidRecords
  );
  metrics.addMetric(
    'BridgeLaunches',
    MetricUnit.Count,
    s.launchedClusters.length
  );
  metrics.addMetric(
    'BridgeLaunchFailures',
    MetricUnit.Count,
    s.failedLaunches + s.failedClaims
  );
};
