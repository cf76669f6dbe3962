/**
 * The watch-bridge function's handler, run every minute by a schedule: one
 * bridge run per registered cluster whose lease it can take (watch-mode
 * clusters until shortly before the timeout, economy-mode clusters until
 * drained). Returns each cluster's outcome; one cluster's failure never fails
 * the invocation.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
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
  /** Tests only: a shorter lease, and a way to stop a run early. */
  leaseTtlMs?: number;
  signal?: AbortSignal;
}) =>
  middy(
    async (_event: unknown, context: Context): Promise<ClusterRunResult[]> =>
      runBridgeInvocation(o.bridge, {
        invocationId: context.awsRequestId,
        remainingMs: context.getRemainingTimeInMillis(),
        watchSeconds: o.config.bridgeWatchSeconds,
        economySeconds: o.config.bridgeEconomySeconds,
        resyncSeconds: o.config.bridgeResyncSeconds,
        ...(o.leaseTtlMs ? { leaseTtlMs: o.leaseTtlMs } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
      })
  ).use(injectLambdaContext(o.logger, { resetKeys: true }));
