/**
 * Options and results of campaign runs for the runner's unit tests: the
 * default setting of a seed, and a finished run of a kind.
 */
import type { RunOptions, RunResult } from '../../campaign/run-types.js';

/** The default setting of `seed`, with `extra` options on top. */
export const runOptions = (
  seed: number,
  extra: Partial<RunOptions> = {}
): RunOptions => ({
  seed,
  nodes: 5,
  daemonSets: 2,
  faultMs: 20_000,
  convergeTimeoutMs: 120_000,
  ...extra,
});

/** A finished run of `kind` with `violations` convergence violations. */
export const runResult = (
  seed: number,
  kind: RunResult['kind'],
  violations = 0,
  options: RunOptions = runOptions(seed, { ownKindShare: 0.5 })
): RunResult => ({
  seed,
  kind,
  options,
  plan: { windows: [] },
  otherClusters: [],
  actions: [],
  violations: Array.from({ length: violations }, () => ({
    invariant: 'converges-after-faults' as const,
    atMs: 0,
    detail: 'x',
  })),
  injected: {},
  convergeMs: 1_000,
  wallMs: 30_000,
  cost: {
    apiRequests: 1,
    dynamodbCalls: 1,
    dynamodbCallKinds: {},
    sqsCalls: 1,
    reconcileInvocations: 1,
  },
  containers: { started: 1, killed: 0, timedOut: 0 },
  history: [],
  logAfterFaults: [],
});
