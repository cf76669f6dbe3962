/**
 * The watch-bridge function's handler, run every minute by a schedule: one
 * bridge run per registered cluster whose lease it can take (watch-mode
 * clusters until shortly before the timeout, economy-mode clusters until
 * drained). Returns each cluster's outcome; one cluster's failure never fails
 * the invocation.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import {
  type BridgeInvocationDeps,
  type ClusterRunResult,
  runBridgeInvocation,
} from '../bridge/bridge-invocation.js';
import type { Config } from '../config.js';

/** Returns the middy handler of the watch-bridge function. */
export const createWatchBridgeHandler = (o: {
  bridge: BridgeInvocationDeps;
  config: Pick<
    Config,
    'bridgeWatchSeconds' | 'bridgeEconomySeconds' | 'bridgeResyncSeconds'
  >;
  logger: Logger;
  /** Fleet-wide bridge metrics (runs, failures, invalid records, events). */
  metrics?: Metrics;
  /** Tests only: a shorter lease, and a way to stop a run early. */
  leaseTtlMs?: number;
  signal?: AbortSignal;
}) => {
  const handler = middy(
    async (_event: unknown, context: Context): Promise<ClusterRunResult[]> => {
      const results = await runBridgeInvocation(o.bridge, {
        invocationId: context.awsRequestId,
        remainingMs: context.getRemainingTimeInMillis(),
        watchSeconds: o.config.bridgeWatchSeconds,
        economySeconds: o.config.bridgeEconomySeconds,
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
 * InvalidClusterRecords (skipped registry items), BridgeEvents (handled).
 * Fleet-wide: which cluster is in each run's log line.
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
};
