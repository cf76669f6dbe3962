/**
 * The requeue function's handler: timer messages from the standard delay
 * queue → `fireTimer` each (add the key to the work queue when due, send it
 * on when not yet due, drop it when a newer timer replaced it). Malformed
 * timer messages are logged and acknowledged; failures are reported per
 * record for redelivery.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import {
  type FireTimerDeps,
  fireParsedTimer,
} from '../workqueue/fire-timers.js';
import { parseTimerMessage } from '../workqueue/timer-message.js';
import { createSqsBatchHandler } from './sqs-batch-handler.js';

/** Returns the middy handler of the requeue function. */
export const createRequeueHandler = (o: {
  timers: FireTimerDeps;
  logger: Logger;
}) =>
  createSqsBatchHandler({
    logger: o.logger,
    dropMessage: 'dropping timer message',
    handlerFor: () => async (record) => {
      const redelivered = Number(record.attributes.ApproximateReceiveCount) > 1;
      const timer = parseTimerMessage(record.body);
      const outcome = await fireParsedTimer(timer, o.timers, redelivered);
      const { key, dueAtMs } = timer;
      o.logger.debug('timer handled', {
        messageId: record.messageId,
        key,
        dueAtMs,
        redelivered,
        outcome,
      });
    },
  });
