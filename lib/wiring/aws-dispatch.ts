/**
 * The composition root of the bridge dispatcher: the registry and the
 * leases on the state table, and the Lambda launcher of the bridge turns.
 * It holds no cluster credentials and opens no connection to a cluster.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { LambdaBridgeLauncher } from '../adapters/aws/lambda-bridge-launcher.js';
import { DynamoBridgeLeaseStore } from '../adapters/dynamodb/dynamo-bridge-lease-store.js';
import { DynamoClusterRegistry } from '../adapters/dynamodb/dynamo-cluster-registry.js';
import { DynamoFleetRolloutStore } from '../adapters/dynamodb/dynamo-fleet-rollout-store.js';
import { systemClock } from '../adapters/system-clock.js';
import type { BridgeDispatchDeps } from '../bridge/dispatch-bridge-turns.js';
import type { FleetWakeDeps } from '../bridge/wake-fleet-rollouts.js';
import type { Config } from '../config.js';
import { ConfigError } from '../errors.js';
import type { BridgeLauncher, Logger } from '../ports/index.js';
import {
  type AwsWiringOverrides,
  commonClientOptions,
  createQueueClients,
} from './aws-clients.js';
import { createQueueWiring } from './aws-timers.js';

/** Builds the dispatcher's adapters once; call at module scope. */
export const createDispatchWiring = (
  config: Config,
  logger: Logger,
  overrides: AwsWiringOverrides & { launcher?: BridgeLauncher } = {}
): BridgeDispatchDeps => {
  const clock = overrides.clock ?? systemClock;
  const dynamo = new DynamoDBClient({
    ...commonClientOptions(overrides),
    ...(overrides.endpoints?.dynamodb
      ? { endpoint: overrides.endpoints.dynamodb }
      : {}),
  });
  const table = { client: dynamo, tableName: config.tableName, clock };
  return {
    registry: new DynamoClusterRegistry(table),
    leases: new DynamoBridgeLeaseStore(table),
    launcher: overrides.launcher ?? lambdaLauncher(config, overrides),
    clock,
    logger,
  };
};

const lambdaLauncher = (
  config: Config,
  overrides: AwsWiringOverrides
): BridgeLauncher => {
  if (config.bridgeFunctions === undefined) {
    throw new ConfigError([
      'BRIDGE_WATCH_FUNCTION and BRIDGE_ECONOMY_FUNCTION are not set',
    ]);
  }
  return new LambdaBridgeLauncher({
    client: new LambdaClient(commonClientOptions(overrides)),
    functions: config.bridgeFunctions,
  });
};

/**
 * Builds what waking fleet rollouts needs (the fleet records on the state
 * table, the work queue); call at module scope.
 */
export const createFleetWakeWiring = (
  config: Config,
  logger: Logger,
  overrides: AwsWiringOverrides = {}
): FleetWakeDeps => {
  const clock = overrides.clock ?? systemClock;
  const clients = createQueueClients(overrides);
  return {
    store: new DynamoFleetRolloutStore({
      client: clients.dynamo,
      tableName: config.tableName,
      clock,
    }),
    queue: createQueueWiring(config, clients, overrides).queue,
    clock,
    logger,
  };
};
