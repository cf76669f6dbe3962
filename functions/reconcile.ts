/** Lambda entry: SQS work queue → one `syncDaemonSet` per key. */

import {
  createObservability,
  METRICS_SERVICE,
} from '../lib/adapters/powertools/lambda-observability.js';
import { loadConfig } from '../lib/config.js';
import { createReconcileHandler } from '../lib/handlers/reconcile-handler.js';
import { createAwsWiring } from '../lib/wiring/aws.js';

const config = loadConfig();
const { logger, log, metrics, sink } = createObservability(
  config,
  METRICS_SERVICE.reconcile
);
const { reconciler, messageLeases } = createAwsWiring(config, log, sink);

export const handler = createReconcileHandler({
  reconciler,
  leases: messageLeases,
  logger,
  metrics,
});
