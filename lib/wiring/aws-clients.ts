/**
 * The AWS SDK clients every function builds once per container, with the
 * overrides tests give them (emulator endpoints, static credentials, a fake
 * clock).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { ClusterConnectorOptions } from '../adapters/kube/kube-cluster-connector.js';
import {
  AWS_CONNECTION_TIMEOUT_MS,
  AWS_REQUEST_TIMEOUT_MS,
} from '../policy/time-limits.js';
import type { Clock } from '../ports/index.js';

/** Overrides for tests: emulator endpoints, a fake clock. */
export interface AwsWiringOverrides {
  /** One endpoint per service, e.g. DynamoDB Local and fauxqs. */
  endpoints?: { dynamodb?: string; sqs?: string };
  /** Static credentials for emulators (never logged). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  region?: string;
  clock?: Clock;
  /**
   * Tests only: opens `kubeconfig` records (files on this machine), with
   * `kubeConfigFromFile`. The deployed functions never set it, so they
   * refuse such records.
   */
  kubeconfigFiles?: ClusterConnectorOptions['kubeconfigFiles'];
}

/**
 * Returns the options every SDK client of the overrides shares: timeouts
 * on every call (lib/policy/time-limits.ts), so none outlasts the margin
 * a reconcile batch keeps for settling its records.
 */
export const commonClientOptions = (overrides: AwsWiringOverrides) => ({
  requestHandler: {
    connectionTimeout: AWS_CONNECTION_TIMEOUT_MS,
    requestTimeout: AWS_REQUEST_TIMEOUT_MS,
    // Else the SDK only logs a warning when the time is up.
    throwOnRequestTimeout: true,
  },
  ...(overrides.region ? { region: overrides.region } : {}),
  ...(overrides.credentials ? { credentials: overrides.credentials } : {}),
});

/** Returns one service's SDK client options (none in AWS). */
const clientOptions = (
  overrides: AwsWiringOverrides,
  service: 'dynamodb' | 'sqs'
) => ({
  ...commonClientOptions(overrides),
  ...(overrides.endpoints?.[service]
    ? { endpoint: overrides.endpoints[service] }
    : {}),
});

/** The clients of the queue and the state table. */
export interface QueueClients {
  dynamo: DynamoDBClient;
  sqs: SQSClient;
}

/** Builds the queue and table clients. */
export const createQueueClients = (
  overrides: AwsWiringOverrides
): QueueClients => ({
  dynamo: new DynamoDBClient(clientOptions(overrides, 'dynamodb')),
  sqs: new SQSClient(clientOptions(overrides, 'sqs')),
});
