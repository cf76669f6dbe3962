/**
 * Lambda entry (every minute): launch the bridge turns the fleet needs, and
 * wake the fleet rollouts an operator changed.
 */

import {
  createObservability,
  METRICS_SERVICE,
} from '../lib/adapters/powertools/lambda-observability.js';
import { loadConfig } from '../lib/config.js';
import { createBridgeDispatchHandler } from '../lib/handlers/bridge-dispatch-handler.js';
import {
  createDispatchWiring,
  createFleetWakeWiring,
} from '../lib/wiring/aws-dispatch.js';

const config = loadConfig();
// The bridge's service: its alarms read the dispatcher's counts too.
const { logger, log, metrics, sink } = createObservability(
  config,
  METRICS_SERVICE.bridge
);

export const handler = createBridgeDispatchHandler({
  dispatch: createDispatchWiring(config, log),
  fleet: createFleetWakeWiring(config, log),
  config,
  logger,
  metrics,
  sink,
});
