/**
 * The composition root of the Lambda functions: the AWS SDK clients (built
 * once per container) and every adapter on them, from the validated config.
 * Tests build the same wiring with emulator endpoints, so the handlers they
 * drive are the deployed ones.
 */

import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { STSClient } from '@aws-sdk/client-sts';
import { EksClusterDirectory } from '../adapters/aws/eks-cluster-directory.js';
import { SecretCredentials } from '../adapters/aws/secret-credentials.js';
import { DynamoBridgeLeaseStore } from '../adapters/dynamodb/dynamo-bridge-lease-store.js';
import { DynamoClusterHealthStore } from '../adapters/dynamodb/dynamo-cluster-health-store.js';
import { DynamoClusterRegistry } from '../adapters/dynamodb/dynamo-cluster-registry.js';
import { DynamoClusterSyncSlots } from '../adapters/dynamodb/dynamo-cluster-sync-slots.js';
import { DynamoExpectationsStore } from '../adapters/dynamodb/dynamo-expectations-store.js';
import { DynamoFailedPodBackoffStore } from '../adapters/dynamodb/dynamo-failed-pod-backoff-store.js';
import { DynamoFleetRolloutStore } from '../adapters/dynamodb/dynamo-fleet-rollout-store.js';
import { DynamoNodeIndexStore } from '../adapters/dynamodb/dynamo-node-index-store.js';
import { DynamoOwnershipStore } from '../adapters/dynamodb/dynamo-ownership-store.js';
import { DynamoRequestBudget } from '../adapters/dynamodb/dynamo-request-budget.js';
import { withRequestSignal } from '../adapters/kube/client/request-signal.js';
import { ClusterConnector } from '../adapters/kube/kube-cluster-connector.js';
import { SqsMessageLeases } from '../adapters/sqs/sqs-message-leases.js';
import { systemClock } from '../adapters/system-clock.js';
import type { BridgeInvocationDeps } from '../bridge/bridge-invocation.js';
import type { Config } from '../config.js';
import { fieldManagerFor } from '../policy/identity.js';
import type { Logger, MessageLeases, MetricsSink } from '../ports/index.js';
import type { ClusterSessions } from '../worker/cluster-sessions.js';
import type { Reconciler } from '../worker/reconciler.js';
import type { FireTimerDeps } from '../workqueue/fire-timers.js';
import {
  type AwsWiringOverrides,
  commonClientOptions,
  createQueueClients,
} from './aws-clients.js';
import { createQueueWiring, timerDepsOf } from './aws-timers.js';
import { composeProduct } from './compose-product.js';

export type { AwsWiringOverrides } from './aws-clients.js';

/** Everything the three functions need. */
export interface AwsWiring {
  reconciler: Reconciler;
  /** The reconcile function's leases on the work queue's messages. */
  messageLeases: MessageLeases;
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
  const clients = createQueueClients(overrides);
  const queueWiring = createQueueWiring(config, clients, overrides);
  const { queue, store: queueStore } = queueWiring;
  const table = { client: clients.dynamo, tableName: config.tableName, clock };
  const expectations = new DynamoExpectationsStore(table);
  const registry = new DynamoClusterRegistry(table);
  const secrets = new SecretCredentials({
    client: new SecretsManagerClient(commonClientOptions(overrides)),
  });
  const fieldManager = fieldManagerFor(config.deploymentId);
  const sts = new STSClient(commonClientOptions(overrides));
  const budget = new DynamoRequestBudget(table);
  const connector = new ClusterConnector({
    ...(overrides.kubeconfigFiles
      ? { kubeconfigFiles: overrides.kubeconfigFiles }
      : {}),
    cacheReads: true,
    fieldManager,
    sts,
    eksTargets: new EksClusterDirectory({ sts, clock }),
    secrets,
    budget,
    clock,
    logger,
  });
  const product = composeProduct({
    registry,
    connect: (record) => connector.connect(record),
    forgetCredential: (record) => connector.forgetCredential(record),
    queue,
    ledger: queueStore,
    expectations,
    failedPodBackoff: new DynamoFailedPodBackoffStore(table),
    health: new DynamoClusterHealthStore(table),
    ownership: new DynamoOwnershipStore(table),
    leases: new DynamoBridgeLeaseStore(table),
    nodeIndex: new DynamoNodeIndexStore(table),
    fleetRollouts: new DynamoFleetRolloutStore(table),
    clock,
    logger,
    metrics,
    reconcile: {
      fieldManager,
      slots: new DynamoClusterSyncSlots(table),
      maxSyncsPerCluster: config.reconcilePerCluster,
      budget,
      requestScope: withRequestSignal,
    },
  });
  return {
    ...product,
    messageLeases: new SqsMessageLeases({
      client: clients.sqs,
      queueUrl: config.workQueueUrl,
    }),
    timers: timerDepsOf(queueWiring, overrides),
  };
};
