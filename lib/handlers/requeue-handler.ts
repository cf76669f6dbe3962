/**
 * The requeue function's handler: timer messages from the standard delay
 * queue → `fireTimer` each (add the key to the work queue when due, send it
 * on when not yet due, drop it when a newer timer replaced it). Malformed
 * timer messages are logged and acknowledged; failures are reported per
 * record for redelivery.
 */
import {
  BatchProcessor,
  EventType,
  processPartialResponse,
} from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type {
  Context,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import { TerminalError } from '../errors.js';
import { type FireTimerDeps, fireTimer } from '../timers/fire-timers.js';

/** Returns the middy handler of the requeue function. */
export const createRequeueHandler = (o: {
  timers: FireTimerDeps;
  logger: Logger;
}) => {
  const processor = new BatchProcessor(EventType.SQS);
  const handleRecord = async (record: SQSRecord): Promise<void> => {
    try {
      const outcome = await fireTimer(record.body, o.timers);
      o.logger.debug('timer handled', { messageId: record.messageId, outcome });
    } catch (e) {
      if (!(e instanceof TerminalError)) throw e;
      o.logger.error('dropping timer message', {
        messageId: record.messageId,
        error: e.message,
      });
    }
  };
  return middy(
    async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
      processPartialResponse(event, handleRecord, processor, {
        context,
        throwOnFullBatchFailure: false,
      })
  ).use(injectLambdaContext(o.logger, { resetKeys: true }));
};
