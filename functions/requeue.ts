/** Lambda entry: delay queue → due keys back onto the work queue. */
import { createAwsWiring } from '../lib/adapters/aws-wiring.js';
import { createObservability } from '../lib/adapters/powertools/lambda-observability.js';
import { loadConfig } from '../lib/config.js';
import { createRequeueHandler } from '../lib/handlers/requeue-handler.js';

const config = loadConfig();
const { logger, log, sink } = createObservability(config, 'requeue');
const { timers } = createAwsWiring(config, log, sink);

export const handler = createRequeueHandler({ timers, logger });
