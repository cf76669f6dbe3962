/**
 * `npx dsr clusters <list|add|check|remove|unfence> [options]`: registers the
 * clusters the reconciler manages (lib/cli/clusters/run-clusters-cli.ts); run by
 * functions/dsr.ts. This module only builds the AWS clients for the chosen table (or stage) and region, on
 * the same adapters the deployed functions use, and prints the result.
 *
 *   npx dsr clusters list --table dsr-prod-state
 *   npx dsr clusters check --id prod-eu --stage prod --region eu-west-1
 */

import { readFileSync } from 'node:fs';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { STSClient } from '@aws-sdk/client-sts';
import { CloudFormationStackOutputs } from '../lib/adapters/aws/cloudformation-stack-outputs.js';
import { EksClusterDirectory } from '../lib/adapters/aws/eks-cluster-directory.js';
import { SecretCredentials } from '../lib/adapters/aws/secret-credentials.js';
import { DynamoBridgeLeaseStore } from '../lib/adapters/dynamodb/dynamo-bridge-lease-store.js';
import { DynamoClusterHealthStore } from '../lib/adapters/dynamodb/dynamo-cluster-health-store.js';
import { DynamoClusterRegistry } from '../lib/adapters/dynamodb/dynamo-cluster-registry.js';
import { DynamoNodeIndexStore } from '../lib/adapters/dynamodb/dynamo-node-index-store.js';
import { DynamoOwnershipStore } from '../lib/adapters/dynamodb/dynamo-ownership-store.js';
import { ClusterConnector } from '../lib/adapters/kube/kube-cluster-connector.js';
import {
  kubeConfigFromFile,
  serverOfRecord,
} from '../lib/adapters/kube/kube-config-for-cluster.js';
import { systemClock } from '../lib/adapters/system-clock.js';
import type { ClustersCliDeps } from '../lib/cli/clusters/clusters-commands.js';
import { runClustersCli } from '../lib/cli/clusters/run-clusters-cli.js';
import type { TableTarget } from '../lib/cli/parse-table-locator.js';

/** `check` records no Events, so nothing is logged. */
const silentLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

const depsFor = ({
  tableName,
  region,
  endpoint,
}: TableTarget): ClustersCliDeps => {
  const common = region ? { region } : {};
  const sts = new STSClient(common);
  const directory = new EksClusterDirectory({ sts, clock: systemClock });
  const connector = new ClusterConnector({
    kubeconfigFiles: kubeConfigFromFile,
    sts,
    eksTargets: directory,
    secrets: new SecretCredentials({
      client: new SecretsManagerClient(common),
    }),
    clock: systemClock,
    logger: silentLogger,
  });
  const client = new DynamoDBClient({
    ...common,
    ...(endpoint && { endpoint }),
  });
  const table = { client, tableName, clock: systemClock };
  return {
    registry: new DynamoClusterRegistry({
      ...table,
      // Every command reads the table as it is now.
      cacheTtlMs: 0,
    }),
    ownership: new DynamoOwnershipStore(table),
    health: new DynamoClusterHealthStore(table),
    leases: new DynamoBridgeLeaseStore(table),
    nodeIndex: new DynamoNodeIndexStore(table),
    connect: (record) => connector.connect(record),
    describeEksCluster: (auth) =>
      directory.describe({ type: 'eks', ...auth }, 'clusters-add', true),
    serverOf: serverOfRecord,
    readTextFile: (file) => readFileSync(file, 'utf8'),
  };
};

/** `--stage`: the stack's outputs name the table. */
export const stackOutputsFor = (region: string | undefined) =>
  new CloudFormationStackOutputs({
    client: new CloudFormationClient(region ? { region } : {}),
  });

/** Runs `dsr clusters ARGV…` on the AWS clients of the chosen table. */
export const runClusters = (argv: readonly string[]) =>
  runClustersCli(argv, process.env, depsFor, stackOutputsFor);
