/**
 * A bed for the clusters CLI's unit tests: in-memory registry, fences,
 * breakers and leases, kubeconfig files of fake API servers, a cluster
 * that passes every check (tests swap `deps.connect`), and `run` on
 * DynamoDB Local's table `state` (the deps stand in for it).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serverOfRecord } from '#lib/adapters/kube/kube-config-for-cluster.js';
import { MemoryBridgeLeaseStore } from '#lib/adapters/memory/memory-bridge-lease-store.js';
import { MemoryClusterHealthStore } from '#lib/adapters/memory/memory-cluster-health-store.js';
import { MemoryNodeIndexStore } from '#lib/adapters/memory/memory-node-index-store.js';
import { MemoryOwnershipStore } from '#lib/adapters/memory/memory-ownership-store.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import type { CheckConnection } from '#lib/cli/clusters/check-types.js';
import type { ClustersCliDeps } from '#lib/cli/clusters/clusters-commands.js';
import {
  type CliOutput,
  runClustersCli,
} from '#lib/cli/clusters/run-clusters-cli.js';
import type { StackOutputsFor } from '#lib/cli/stack-table.js';
import { MemoryClusterRegistry } from './fakes/memory-cluster-registry.js';

/** The DynamoDB Local endpoint `run` names (kubeconfig records need one). */
export const LOCAL_DYNAMODB = 'http://127.0.0.1:8000';

/** Returns a kubeconfig of the API server `server`. */
export const kubeconfigYaml = (server: string) => `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: ${server}
users:
- name: u
  user:
    token: not-used-here
contexts:
- name: c
  context: { cluster: c, user: u }
current-context: c
`;

/** A cluster's probe answering every question of a check, but `overrides`. */
export const answering = (
  overrides: Partial<CheckConnection['probe']> = {}
): CheckConnection['probe'] => ({
  version: async () => 'v1.36.3',
  whoAmI: async () => 'admin',
  canI: async () => true,
  daemonSetStatusManagers: async () => [],
  ...overrides,
});

/** The bed; `cleanup` removes its files. */
export interface ClustersCliBed {
  registry: MemoryClusterRegistry;
  ownership: MemoryOwnershipStore;
  health: MemoryClusterHealthStore;
  leases: MemoryBridgeLeaseStore;
  nodeIndex: MemoryNodeIndexStore;
  deps: ClustersCliDeps;
  /** Writes a kubeconfig of `server` and returns its path. */
  kubeconfig(server: string): string;
  /** Runs the CLI with `--table state --endpoint LOCAL_DYNAMODB` first. */
  run(...argv: string[]): Promise<CliOutput>;
  /** Runs the CLI with exactly `argv` (and `stackOutputsFor`). */
  runRaw(
    argv: string[],
    stackOutputsFor?: StackOutputsFor,
    env?: Record<string, string>
  ): Promise<CliOutput>;
  cleanup(): void;
}

/** Returns a fresh bed. */
export const createClustersCliBed = (): ClustersCliBed => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsr-cli-'));
  let files = 0;
  const registry = new MemoryClusterRegistry();
  const ownership = new MemoryOwnershipStore({ clock: systemClock });
  const health = new MemoryClusterHealthStore({ clock: systemClock });
  const leases = new MemoryBridgeLeaseStore({ clock: systemClock });
  const nodeIndex = new MemoryNodeIndexStore();
  const deps: ClustersCliDeps = {
    registry,
    connect: async () => ({ probe: answering(), close: () => undefined }),
    serverOf: serverOfRecord,
    readTextFile: (file) => readFileSync(file, 'utf8'),
    ownership,
    health,
    leases,
    nodeIndex,
  };
  const runRaw: ClustersCliBed['runRaw'] = (argv, stackOutputsFor, env = {}) =>
    runClustersCli(argv, env, () => deps, stackOutputsFor);
  return {
    registry,
    ownership,
    health,
    leases,
    nodeIndex,
    deps,
    kubeconfig: (server) => {
      const file = path.join(dir, `kubeconfig-${++files}`);
      writeFileSync(file, kubeconfigYaml(server));
      return file;
    },
    run: (...argv) =>
      runRaw(['--table', 'state', '--endpoint', LOCAL_DYNAMODB, ...argv]),
    runRaw,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
};
