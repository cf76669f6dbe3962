/**
 * The work queue's wiring on AWS — the SQS work and delay queues and the
 * work-queue store in DynamoDB — shared by every function. The requeue
 * function builds only this, so its bundle carries neither the Kubernetes
 * client nor the credential adapters.
 */

import { DynamoWorkQueueStore } from '../adapters/dynamodb/dynamo-work-queue-store.js';
import { SqsDelayQueue } from '../adapters/sqs/sqs-delay-queue.js';
import { SqsWorkQueue } from '../adapters/sqs/sqs-work-queue.js';
import { systemClock } from '../adapters/system-clock.js';
import type { Config } from '../config.js';
import type { FireTimerDeps } from '../workqueue/fire-timers.js';
import {
  type AwsWiringOverrides,
  createQueueClients,
  type QueueClients,
} from './aws-clients.js';

/** The queue adapters of one container. */
export interface QueueWiring {
  queue: SqsWorkQueue;
  delayQueue: SqsDelayQueue;
  store: DynamoWorkQueueStore;
}

/** Builds the queue adapters on `clients`. */
export const createQueueWiring = (
  config: Config,
  clients: QueueClients,
  overrides: AwsWiringOverrides
): QueueWiring => {
  const clock = overrides.clock ?? systemClock;
  const store = new DynamoWorkQueueStore({
    client: clients.dynamo,
    tableName: config.tableName,
    clock,
  });
  const delayQueue = new SqsDelayQueue({
    client: clients.sqs,
    queueUrl: config.delayQueueUrl,
  });
  const queue = new SqsWorkQueue({
    client: clients.sqs,
    workQueueUrl: config.workQueueUrl,
    delayQueue,
    marks: store,
    clock,
  });
  return { queue, delayQueue, store };
};

/** Returns what firing timers needs from the queue wiring. */
export const timerDepsOf = (
  wiring: QueueWiring,
  overrides: AwsWiringOverrides
): FireTimerDeps => ({
  delayQueue: wiring.delayQueue,
  workQueue: wiring.queue,
  marks: wiring.store,
  clock: overrides.clock ?? systemClock,
});

/** Builds what firing timers needs; call at module scope. */
export const createTimerWiring = (
  config: Config,
  overrides: AwsWiringOverrides = {}
): FireTimerDeps =>
  timerDepsOf(
    createQueueWiring(config, createQueueClients(overrides), overrides),
    overrides
  );
