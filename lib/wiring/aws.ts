/**
 * The composition root of the Lambda functions: the AWS SDK clients (built
 * once per container) and every adapter on them, from the validated config.
 * Tests build the same wiring with emulator endpoints, so the handlers they
 * drive are the deployed ones.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { STSClient } from '@aws-sdk/client-sts';
import { SecretCredentials } from '../adapters/aws/secret-credentials.js';
import { ClusterConnector } from '../adapters/cluster-connector.js';
import { DynamoBridgeLeaseStore } from '../adapters/dynamodb/dynamo-bridge-lease-store.js';
import { DynamoClusterHealthStore } from '../adapters/dynamodb/dynamo-cluster-health-store.js';
import { DynamoClusterRegistry } from '../adapters/dynamodb/dynamo-cluster-registry.js';
import { DynamoExpectationsStore } from '../adapters/dynamodb/dynamo-expectations-store.js';
import { DynamoFailedPodBackoffStore } from '../adapters/dynamodb/dynamo-failed-pod-backoff-store.js';
import { DynamoNodeIndexStore } from '../adapters/dynamodb/dynamo-node-index-store.js';
import { DynamoOwnershipStore } from '../adapters/dynamodb/dynamo-ownership-store.js';
import { DynamoRequestBudget } from '../adapters/dynamodb/dynamo-request-budget.js';
import { DynamoWorkQueueStore } from '../adapters/dynamodb/dynamo-work-queue-store.js';
import { SqsDelayQueue } from '../adapters/sqs/sqs-delay-queue.js';
import { SqsWorkQueue } from '../adapters/sqs/sqs-work-queue.js';
import { systemClock } from '../adapters/system-clock.js';
import type { BridgeInvocationDeps } from '../bridge/bridge-invocation.js';
import type { Config } from '../config.js';
import type { Clock, Logger, MetricsSink } from '../ports/index.js';
import type { FireTimerDeps } from '../timers/fire-timers.js';
import { ClusterSessions } from '../worker/cluster-sessions.js';
import { Reconciler } from '../worker/reconciler.js';
import { clientOptions } from './aws-timers.js';

/** Overrides for tests: emulator endpoints, a fake clock. */
export interface AwsWiringOverrides {
  /** One endpoint per service, e.g. DynamoDB Local and fauxqs. */
  endpoints?: { dynamodb?: string; sqs?: string };
  /** Static credentials for emulators (never logged). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  region?: string;
  clock?: Clock;
}

/** Everything the three functions need. */
export interface AwsWiring {
  reconciler: Reconciler;
  bridge: BridgeInvocationDeps;
  timers: FireTimerDeps;
  sessions: ClusterSessions;
}

/** Builds clients and adapters once; call at module scope. */
export const createAwsWiring = (
  config: Config,
  logger: Logger,
  metrics: MetricsSink,
  overrides: AwsWiringOverrides = {}
): AwsWiring => {
  const clock = overrides.clock ?? systemClock;
  const common = {
    ...(overrides.region ? { region: overrides.region } : {}),
    ...(overrides.credentials ? { credentials: overrides.credentials } : {}),
  };
  const dynamo = new DynamoDBClient(clientOptions(overrides, 'dynamodb'));
  const sqs = new SQSClient(clientOptions(overrides, 'sqs'));
  const table = { client: dynamo, tableName: config.tableName, clock };
  const expectations = new DynamoExpectationsStore(table);
  const queueStore = new DynamoWorkQueueStore(table);
  const queue = new SqsWorkQueue({
    client: sqs,
    workQueueUrl: config.workQueueUrl,
    delayQueueUrl: config.delayQueueUrl,
    marks: queueStore,
    clock,
  });
  const registry = new DynamoClusterRegistry(table);
  const secrets = new SecretCredentials({
    client: new SecretsManagerClient(common),
  });
  const connector = new ClusterConnector({
    sts: new STSClient(common),
    secrets,
    budget: new DynamoRequestBudget(table),
    clock,
  });
  const connect = (record: Parameters<ClusterConnector['connect']>[0]) =>
    connector.connect(record);
  const sessions = new ClusterSessions({
    registry,
    connect,
    forgetCredential: (record) => {
      if (record.auth.type === 'secret')
        secrets.invalidate(record.auth.secretArn);
    },
    expectations,
    failedPodBackoff: new DynamoFailedPodBackoffStore(table),
    clock,
    logger,
  });
  return {
    sessions,
    reconciler: new Reconciler({
      sessions,
      health: new DynamoClusterHealthStore(table),
      ownership: new DynamoOwnershipStore(table),
      ledger: queueStore,
      queue,
      clock,
      logger,
      metrics,
    }),
    bridge: {
      registry,
      connect,
      queue,
      expectations,
      leases: new DynamoBridgeLeaseStore(table),
      nodeIndex: new DynamoNodeIndexStore(table),
      clock,
      logger,
    },
    timers: {
      delayQueue: new SqsDelayQueue({
        client: sqs,
        queueUrl: config.delayQueueUrl,
      }),
      workQueue: queue,
      marks: queueStore,
      clock,
    },
  };
};
