/**
 * `npx dsr fleet <verb> [NAME] [options]`: fleet rollout policies and
 * their rollouts (lib/cli/fleet/run-fleet-cli.ts); run by functions/dsr.ts.
 * This module only builds the AWS clients for the chosen table (or stage)
 * and region, on the same adapters the deployed functions use, and opens
 * a member cluster on the operator's kubeconfig for `rollback`.
 *
 *   npx dsr fleet apply -f node-agent.yaml --stage prod
 *   npx dsr fleet status node-agent --table dsr-prod-state
 */

import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoClusterRegistry } from '../lib/adapters/dynamodb/dynamo-cluster-registry.js';
import { DynamoFleetRolloutStore } from '../lib/adapters/dynamodb/dynamo-fleet-rollout-store.js';
import { openAdvancedDaemonSets } from '../lib/adapters/kube/kube-advanced-daemon-sets.js';
import { systemClock } from '../lib/adapters/system-clock.js';
import type { FleetCliDeps } from '../lib/cli/fleet/fleet-cli-deps.js';
import { runFleetCli } from '../lib/cli/fleet/run-fleet-cli.js';
import type { TableTarget } from '../lib/cli/parse-table-locator.js';
import { stackOutputsFor } from './clusters.js';

/** Stdin's name on the command line (`apply -f -`), as kubectl takes it. */
const STDIN = '-';

const depsFor = ({
  tableName,
  region,
  endpoint,
}: TableTarget): FleetCliDeps => {
  const client = new DynamoDBClient({
    ...(region ? { region } : {}),
    ...(endpoint && { endpoint }),
  });
  const table = { client, tableName, clock: systemClock };
  return {
    store: new DynamoFleetRolloutStore(table),
    // Every verb reads the registry as it is now.
    registry: new DynamoClusterRegistry({ ...table, cacheTtlMs: 0 }),
    clock: systemClock,
    readTextFile: (file) => readFileSync(file === STDIN ? 0 : file, 'utf8'),
    openMember: (target) =>
      openAdvancedDaemonSets({
        ...target,
        ...(process.env.KUBECONFIG === undefined
          ? {}
          : { kubeconfigEnv: process.env.KUBECONFIG }),
      }),
  };
};

/** Runs `dsr fleet ARGV…` on the AWS clients of the chosen table. */
export const runFleet = (argv: readonly string[]) =>
  runFleetCli(argv, process.env, depsFor, stackOutputsFor);
