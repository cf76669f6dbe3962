/**
 * The one shape of an SQS-fed function here: every record of the batch goes
 * to a record handler, failures are reported per record (Powertools'
 * partial batch response, so only they are redelivered, each logged), a
 * record that can
 * never succeed (TerminalError) is logged and acknowledged, and a batch in
 * which every record failed is reported record by record too instead of
 * failing the invocation (that is an outage of our own state store).
 *
 * Why Powertools Batch rather than `@middy/sqs-partial-batch-failure`: the
 * registry here serves that middleware only for middy 6, and mixing middy
 * majors is unsupported. Why `BatchProcessor` rather than the FIFO
 * processor: records of one group are coalesced into one sync, so in-group
 * order never matters, and the FIFO processor would stop the whole batch at
 * the first failure.
 */
import {
  BatchProcessor,
  EventType,
  processPartialResponse,
} from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type {
  Context,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import { TerminalError, toError } from '../errors.js';
import { lambdaMiddy } from './lambda-middy.js';

/** What an SQS batch handler is built from. */
export interface SqsBatchHandlerOptions {
  logger: Logger;
  /** What the log line of an acknowledged poison record says. */
  dropMessage: string;
  /**
   * Returns the handler of this batch's records (it may group them);
   * `context` tells how long the invocation has left.
   */
  handlerFor(
    event: SQSEvent,
    context: Context
  ): (record: SQSRecord) => Promise<void>;
}

/** Returns the middy handler of an SQS-fed function. */
export const createSqsBatchHandler = (o: SqsBatchHandlerOptions) => {
  const processor = new BatchProcessor(EventType.SQS);
  return lambdaMiddy(
    async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
      const handle = o.handlerFor(event, context);
      return processPartialResponse(
        event,
        async (record: SQSRecord) => {
          try {
            await handle(record);
          } catch (e) {
            if (!(e instanceof TerminalError)) {
              // Else a redelivery six minutes later is all the trace left.
              o.logger.warn('record failed; it is delivered again', {
                messageId: record.messageId,
                error: toError(e).message,
              });
              throw e;
            }
            o.logger.error(o.dropMessage, {
              messageId: record.messageId,
              error: e.message,
            });
          }
        },
        processor,
        { context, throwOnFullBatchFailure: false }
      );
    }
  ).use(injectLambdaContext(o.logger, { resetKeys: true }));
};
