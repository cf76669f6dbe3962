/**
 * `kubectl dsr …` (and `dsr …`): the kubectl plugin for DaemonSets of both
 * kinds (lib/cli/plugin/run-plugin.ts) on a kubeconfig, as kubectl opens
 * one; run by functions/dsr.ts. `plan` and `explain` with `--cluster ID
 * --stage NAME` also read the reconcilers' state table (read only).
 *
 *   kubectl dsr rollout status advds/node-agent -n kube-system
 *   kubectl dsr explain node gpu-1 --ds kube-system/node-agent
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoExpectationsStore } from '../lib/adapters/dynamodb/dynamo-expectations-store.js';
import { DynamoFailedPodBackoffStore } from '../lib/adapters/dynamodb/dynamo-failed-pod-backoff-store.js';
import { openAdvancedDaemonSets } from '../lib/adapters/kube/kube-advanced-daemon-sets.js';
import { systemClock } from '../lib/adapters/system-clock.js';
import type { OpenState } from '../lib/cli/plugin/inspect-command.js';
import { runPlugin } from '../lib/cli/plugin/run-plugin.js';
import { resolveTable } from '../lib/cli/stack-table.js';
import packageJson from '../package.json' with { type: 'json' };
import { stackOutputsFor } from './clusters.js';

/** Opens the expectations and failed-pod backoff of a state table. */
const openState: OpenState = async (locator) => {
  const { tableName, region, endpoint } = await resolveTable(
    locator,
    stackOutputsFor
  );
  const client = new DynamoDBClient({
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
  });
  const table = { client, tableName, clock: systemClock };
  return {
    expectations: new DynamoExpectationsStore(table),
    failedPodBackoff: new DynamoFailedPodBackoffStore(table),
  };
};

/**
 * Saves a file of `migrate` under ~/.kube/dsr-migrate (beside kubectl's own
 * cache), stamped with the time so no earlier copy is overwritten.
 */
const save = async (name: string, text: string): Promise<string> => {
  const dir = path.join(homedir(), '.kube', 'dsr-migrate');
  await mkdir(dir, { recursive: true });
  const file = path.join(
    dir,
    `${new Date().toISOString().replaceAll(':', '')}.${name}`
  );
  await writeFile(file, text, { flag: 'wx' });
  return file;
};

/**
 * Runs `kubectl dsr ARGV…`; rollout status and get -w print as they go.
 * The kubeconfig is `--kubeconfig`, else $KUBECONFIG merged as kubectl
 * merges it, else ~/.kube/config. `signal` ends a watch.
 */
export const runKubectlDsr = (argv: readonly string[], signal?: AbortSignal) =>
  runPlugin(argv, {
    open: (target) =>
      openAdvancedDaemonSets({
        ...target,
        ...(process.env.KUBECONFIG === undefined
          ? {}
          : { kubeconfigEnv: process.env.KUBECONFIG }),
      }),
    version: packageJson.version,
    ...(signal === undefined ? {} : { signal }),
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    write: (text) => process.stdout.write(text),
    openState,
    save,
  });
