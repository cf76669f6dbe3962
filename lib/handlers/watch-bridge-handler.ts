/**
 * The bridge function's handler (watch and economy functions alike): runs
 * the turn the dispatcher launched it with — its clusters' bridge runs, at
 * once and each on its own. Returns each cluster's outcome; one cluster's
 * failure never fails the invocation, and an event that is not a turn fails
 * it at once with one clear line.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Context } from 'aws-lambda';
import {
  type BridgeInvocationDeps,
  type ClusterRunResult,
  runBridgeTurn,
} from '../bridge/bridge-invocation.js';
import { parseBridgeTurn } from '../bridge/bridge-turn.js';
import type { Config } from '../config.js';
import { lambdaMiddy } from './lambda-middy.js';

/** Returns the middy handler of the bridge functions. */
export const createWatchBridgeHandler = (o: {
  bridge: BridgeInvocationDeps;
  config: Pick<Config, 'bridgeResyncSeconds'>;
  logger: Logger;
  /** Fleet-wide bridge metrics (runs, failures, invalid records, events). */
  metrics?: Metrics;
  /** Tests only: a shorter lease, and a way to stop a run early. */
  leaseTtlMs?: number;
  signal?: AbortSignal;
}) => {
  const handler = lambdaMiddy(
    async (event: unknown, context: Context): Promise<ClusterRunResult[]> => {
      const turn = parseBridgeTurn(event);
      const results = await runBridgeTurn(o.bridge, turn, {
        invocationId: context.awsRequestId,
        remainingMs: context.getRemainingTimeInMillis(),
        resyncSeconds: o.config.bridgeResyncSeconds,
        ...(o.leaseTtlMs ? { leaseTtlMs: o.leaseTtlMs } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
      });
      if (o.metrics) recordBridgeMetrics(o.metrics, results);
      return results;
    }
  ).use(injectLambdaContext(o.logger, { resetKeys: true }));
  return o.metrics ? handler.use(logMetrics(o.metrics)) : handler;
};

/**
 * Counts one invocation's cluster runs: BridgeRuns (ran to the end),
 * BridgeFailures (a cluster's run failed: unreachable, credentials…),
 * InvalidClusterRecords (a record that fails validation), BridgeEvents
 * (handled), BridgeSkippedEvents (unreadable events skipped: a malformed
 * object, an undecodable event; each logged at error with its key). Fleet-wide: which cluster is in each run's log line.
 */
export const recordBridgeMetrics = (
  metrics: Metrics,
  results: readonly ClusterRunResult[]
): void => {
  const count = (outcome: ClusterRunResult['outcome']) =>
    results.filter((r) => r.outcome === outcome).length;
  metrics.addMetric('BridgeRuns', MetricUnit.Count, count('done'));
  metrics.addMetric('BridgeFailures', MetricUnit.Count, count('failed'));
  metrics.addMetric(
    'InvalidClusterRecords',
    MetricUnit.Count,
    count('invalid-record')
  );
  metrics.addMetric(
    'BridgeEvents',
    MetricUnit.Count,
    results.reduce((n, r) => n + ('events' in r ? r.events : 0), 0)
  );
  metrics.addMetric(
    'BridgeSkippedEvents',
    MetricUnit.Count,
    results.reduce(
      (n, r) => n + ('events' in r ? (r.skippedEvents ?? 0) : 0),
      0
    )
  );
};
