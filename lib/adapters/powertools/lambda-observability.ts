/**
 * The Powertools Logger and Metrics of a function, configured once from the
 * validated config (service name and namespace come from serverless.yml's
 * POWERTOOLS_* variables).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { LogAttributes } from '@aws-lambda-powertools/logger/types';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Config } from '../../config.js';
import type { Logger as LoggerPort } from '../../ports/index.js';
import { PowertoolsMetricsSink } from './powertools-metrics-sink.js';

/** Metric namespace of every function. */
export const METRICS_NAMESPACE = 'ServerlessDaemonSet';

/**
 * The `service` dimension of each function's metrics, which the alarms and
 * the dashboard (infra/resources/) select on. The dispatcher counts under
 * the bridge's.
 */
export const METRICS_SERVICE = {
  reconcile: 'reconcile',
  bridge: 'watch-bridge',
} as const;

/** Returns the Logger port over a Powertools logger. */
export const loggerPort = (logger: Logger): LoggerPort => ({
  debug: (m, f) => logger.debug(m, (f ?? {}) as LogAttributes),
  info: (m, f) => logger.info(m, (f ?? {}) as LogAttributes),
  warn: (m, f) => logger.warn(m, (f ?? {}) as LogAttributes),
  error: (m, f) => logger.error(m, (f ?? {}) as LogAttributes),
});

/**
 * Returns the function's Powertools logger (for the middy chain), the same
 * logger as the Logger port, metrics and the metrics sink.
 */
export const createObservability = (config: Config, serviceName: string) => {
  const logger = new Logger({ serviceName, logLevel: config.logLevel });
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName });
  const sink = new PowertoolsMetricsSink({
    namespace: METRICS_NAMESPACE,
    serviceName,
    perCluster: config.perClusterMetrics,
  });
  return { logger, log: loggerPort(logger), metrics, sink };
};
