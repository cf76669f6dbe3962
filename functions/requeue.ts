/** Lambda entry: delay queue → due keys back onto the work queue. */

import { createObservability } from '../lib/adapters/powertools/lambda-observability.js';
import { loadConfig } from '../lib/config.js';
import { createRequeueHandler } from '../lib/handlers/requeue-handler.js';
import { createTimerWiring } from '../lib/wiring/aws-timers.js';

const config = loadConfig();
const { logger } = createObservability(config, 'requeue');
const timers = createTimerWiring(config);

export const handler = createRequeueHandler({ timers, logger });
