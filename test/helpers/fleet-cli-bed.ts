/**
 * A bed for the fleet CLI's unit tests: the memory fleet rollout store, a
 * memory registry of clusters with labels, a fake clock, policy files in a
 * Map, the wakes it was asked for, and `run` on DynamoDB Local's table
 * `state` (the deps stand in for it).
 */
import { MemoryFleetRolloutStore } from '#lib/adapters/memory/memory-fleet-rollout-store.js';
import type { FleetCliDeps } from '#lib/cli/fleet/fleet-cli-deps.js';
import { runFleetCli } from '#lib/cli/fleet/run-fleet-cli.js';
import type { CliOutput } from '#lib/cli/render-output.js';
import {
  type FleetRolloutState,
  idleFleetRollout,
} from '#lib/fleet/fleet-rollout-state.js';
import type { ClusterRecord, Ownership } from '#lib/ports/index.js';
import { FakeClock } from './fakes/fake-clock.js';
import { MemoryClusterRegistry } from './fakes/memory-cluster-registry.js';

/** The spec's example policy: a canary by id, the rest by label, manual. */
export const NODE_AGENT_YAML = `apiVersion: fleet.dsr.dev/v1alpha1
kind: FleetRolloutPolicy
metadata: { name: node-agent }
spec:
  target: { namespace: kube-system, name: node-agent, kind: DaemonSet }
  clusters: { selector: { matchLabels: { tier: prod } } }
  waves:
    - name: canary
      clusters: { ids: [prod-eu-1] }
      nodeSteps: [ { partition: "90%", bake: 10m }, { partition: 0, bake: 10m } ]
      bake: 30m
    - name: rest
      clusters: { selector: { matchLabels: { region: eu } } }
      approval: manual
`;

/** Returns a registered cluster with registration labels. */
export const registered = (
  id: string,
  labels: Record<string, string>,
  ownership: Ownership = 'apps/v1'
): ClusterRecord => ({
  id,
  endpoint: '',
  caData: '',
  auth: { type: 'kubeconfig', path: `/tmp/${id}.kubeconfig` },
  ownership,
  bridgeMode: 'watch',
  labels,
});

/**
 * The fleet of the example: prod-eu-1 (the canary), prod-eu-2 (rest),
 * prod-us-1 (covered, in no wave), stage-eu-1 (not covered).
 */
export const EXAMPLE_FLEET = [
  registered('prod-eu-1', { tier: 'prod', region: 'eu' }),
  registered('prod-eu-2', { tier: 'prod', region: 'eu' }),
  registered('prod-us-1', { tier: 'prod', region: 'us' }),
  registered('stage-eu-1', { tier: 'stage', region: 'eu' }),
];

/** When the bed's clock starts. */
export const T0 = Date.UTC(2026, 0, 1);

/**
 * A rollout of node-agent under way since T0 + 1s, as its sync saves it:
 * the canary baking its second step, the rest pending behind approval.
 */
export const canaryBaking = (): FleetRolloutState => ({
  ...idleFleetRollout(),
  phase: 'Progressing',
  startedAtMs: T0 + 1_000,
  stable: { 'prod-eu-1': 'rev-1', 'prod-eu-2': 'rev-1', 'prod-us-1': 'rev-1' },
  target: { 'prod-eu-1': 'rev-2', 'prod-eu-2': 'rev-2' },
  clusters: {
    'prod-eu-1': {
      phase: 'Baking',
      step: 1,
      stepStartedAtMs: T0 + 60_000,
      stepAvailableAtMs: T0 + 120_000,
      reason: 'step 2 of 2 bakes for 10m',
    },
  },
});

/** The bed. */
export interface FleetCliBed {
  store: MemoryFleetRolloutStore;
  registry: MemoryClusterRegistry;
  clock: FakeClock;
  /** The files `apply -f` can read, by path. */
  files: Map<string, string>;
  /** The policies whose rollout was woken, in order. */
  wakes: string[];
  deps: FleetCliDeps;
  /** Runs the CLI with `--table state --endpoint …` first. */
  run(...argv: string[]): Promise<CliOutput>;
  /** Applies the example policy to the store, as `apply` would. */
  applyExample(): Promise<void>;
}

/** Returns a fresh bed on the example fleet. */
export const createFleetCliBed = (
  store = new MemoryFleetRolloutStore()
): FleetCliBed => {
  const registry = new MemoryClusterRegistry(EXAMPLE_FLEET);
  const clock = new FakeClock(T0);
  const files = new Map([['node-agent.yaml', NODE_AGENT_YAML]]);
  const wakes: string[] = [];
  const deps: FleetCliDeps = {
    store,
    registry,
    clock,
    readTextFile: (file) => {
      const text = files.get(file);
      if (text === undefined) {
        throw new Error(`ENOENT: no such file or directory, open '${file}'`);
      }
      return text;
    },
    wake: async (name) => {
      wakes.push(name);
    },
  };
  const run = (...argv: string[]) =>
    runFleetCli(
      ['--table', 'state', '--endpoint', 'http://127.0.0.1:8000', ...argv],
      {},
      () => deps
    );
  return {
    store,
    registry,
    clock,
    files,
    wakes,
    deps,
    run,
    applyExample: async () => {
      const out = await run('apply', '-f', 'node-agent.yaml');
      if (out.exitCode !== 0) throw new Error(out.stderr);
      wakes.length = 0;
    },
  };
};
