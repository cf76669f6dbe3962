/**
 * The requeue function's composition root: only SQS and the work-queue
 * store, so its bundle carries neither the Kubernetes client nor the
 * credential adapters (createAwsWiring builds the rest).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoWorkQueueStore } from '../adapters/dynamodb/dynamo-work-queue-store.js';
import { SqsDelayQueue } from '../adapters/sqs/sqs-delay-queue.js';
import { SqsWorkQueue } from '../adapters/sqs/sqs-work-queue.js';
import { systemClock } from '../adapters/system-clock.js';
import type { Config } from '../config.js';
import type { FireTimerDeps } from '../timers/fire-timers.js';
import type { AwsWiringOverrides } from './aws.js';

/** Returns the SDK clients' options for the overrides (none in AWS). */
export const clientOptions = (
  overrides: AwsWiringOverrides,
  service: 'dynamodb' | 'sqs'
) => ({
  ...(overrides.region ? { region: overrides.region } : {}),
  ...(overrides.credentials ? { credentials: overrides.credentials } : {}),
  ...(overrides.endpoints?.[service]
    ? { endpoint: overrides.endpoints[service] }
    : {}),
});

/** Builds what firing timers needs; call at module scope. */
export const createTimerWiring = (
  config: Config,
  overrides: AwsWiringOverrides = {}
): FireTimerDeps => {
  const clock = overrides.clock ?? systemClock;
  const sqs = new SQSClient(clientOptions(overrides, 'sqs'));
  const marks = new DynamoWorkQueueStore({
    client: new DynamoDBClient(clientOptions(overrides, 'dynamodb')),
    tableName: config.tableName,
    clock,
  });
  return {
    delayQueue: new SqsDelayQueue({
      client: sqs,
      queueUrl: config.delayQueueUrl,
    }),
    workQueue: new SqsWorkQueue({
      client: sqs,
      workQueueUrl: config.workQueueUrl,
      delayQueueUrl: config.delayQueueUrl,
      marks,
      clock,
    }),
    marks,
    clock,
  };
};
