/** Lambda entry (every minute): watch each registered cluster → keys on SQS. */

import {
  createObservability,
  METRICS_SERVICE,
} from '../lib/adapters/powertools/lambda-observability.js';
import { loadConfig } from '../lib/config.js';
import { createWatchBridgeHandler } from '../lib/handlers/watch-bridge-handler.js';
import { createAwsWiring } from '../lib/wiring/aws.js';

const config = loadConfig();
const { logger, log, metrics, sink } = createObservability(
  config,
  METRICS_SERVICE.bridge
);
const { bridge } = createAwsWiring(config, log, sink);

export const handler = createWatchBridgeHandler({
  bridge,
  config,
  logger,
  metrics,
});
