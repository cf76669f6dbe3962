/**
 * Runs of several clusters (`--clusters C`): each other cluster draws its
 * kind and its API-side faults from a stream of its own, the first
 * cluster's draws stay as a one-cluster run's, and the shared parts'
 * faults hold every cluster's controller back while one cluster's API
 * faults hold back that cluster's alone.
 */
import { describe, expect, it } from 'vitest';
import { ActiveFaults } from '../../campaign/active-faults.js';
import { summarise } from '../../campaign/campaign-summary.js';
import {
  CLUSTER_FAULT_KINDS,
  type FaultWindow,
} from '../../campaign/fault-plan.js';
import {
  describeRun,
  overloadedBeds,
  replayCommand,
} from '../../campaign/run-campaign.js';
import { planOf, type RunResult } from '../../campaign/run-types.js';
import { SeededRandom } from '../../campaign/seeded-random.js';

const options = (seed: number, clusters?: number) => ({
  seed,
  nodes: 5,
  daemonSets: 2,
  faultMs: 20_000,
  convergeTimeoutMs: 120_000,
  ownKindShare: 0.5,
  ...(clusters === undefined ? {} : { clusters }),
});

const seeds = Array.from({ length: 100 }, (_, i) => 5_000 + i);

describe('planOf: other clusters', () => {
  it('leaves the first cluster as a one-cluster run of the seed draws it: same kind, plan and workload', () => {
    for (const seed of seeds) {
      // Act
      const one = planOf(options(seed));
      const three = planOf(options(seed, 3));
      // Assess
      expect(one.otherClusters).toEqual([]);
      expect({ ...three, otherClusters: [] }).toEqual(one);
      expect(three.otherClusters).toHaveLength(2);
    }
  });

  it('gives each other cluster only faults of its own API server, and a kind and plan of its own', () => {
    // Act
    const others = seeds.flatMap((s) => planOf(options(s, 3)).otherClusters);
    // Assess
    const kinds = new Set(
      others.flatMap((c) => c.plan.windows.map((w) => w.kind))
    );
    expect([...kinds].every((k) => CLUSTER_FAULT_KINDS.includes(k))).toBe(true);
    expect(kinds.size).toBe(CLUSTER_FAULT_KINDS.length);
    expect(new Set(others.map((c) => c.kind))).toEqual(
      new Set(['DaemonSet', 'AdvancedDaemonSet'])
    );
    const [a, b] = planOf(options(5_000, 3)).otherClusters;
    expect(a?.plan).not.toEqual(b?.plan);
    expect(planOf(options(5_000, 3))).toEqual(planOf(options(5_000, 3)));
  });

  it('draws no faults for any cluster of a fault-free run (the cost baseline)', () => {
    // Act
    const planned = planOf({ ...options(5_001, 3), faultFree: true });
    // Assess
    expect(planned.plan.windows).toEqual([]);
    expect(planned.otherClusters.map((c) => c.plan.windows)).toEqual([[], []]);
  });
});

describe('ActiveFaults.holdsEveryClusterBack', () => {
  const open = (kind: FaultWindow['kind']): FaultWindow => ({
    kind,
    fromMs: 0,
    toMs: 60_000,
    rate: 1,
  });

  it("is held by the shared table's and queues' faults, not by one API server's", () => {
    for (const [kind, every] of [
      ['dynamodb-5xx', true],
      ['dynamodb-throttle', true],
      ['sqs-send-5xx', true],
      ['cluster-unreachable', false],
      ['api-429', false],
      ['api-5xx', false],
      ['api-reset', false],
    ] as const) {
      // Prepare
      const faults = new ActiveFaults(
        { windows: [open(kind)] },
        new SeededRandom(1)
      );
      // Act
      faults.begin();
      // Assess
      expect([kind, faults.holdsControllerBack()]).toEqual([kind, true]);
      expect([kind, faults.holdsEveryClusterBack()]).toEqual([kind, every]);
    }
  });
});

describe('a run of three clusters, reported', () => {
  const run = (): RunResult => {
    const o = options(5_002, 3);
    const planned = planOf(o);
    return {
      ...planned,
      seed: o.seed,
      options: o,
      violations: [
        {
          invariant: 'converges-after-faults',
          atMs: 0,
          detail: 'cluster 2: x',
        },
      ],
      injected: {},
      convergeMs: undefined,
      wallMs: 1_000,
      cost: {
        apiRequests: 1,
        dynamodbCalls: 1,
        dynamodbCallKinds: {},
        sqsCalls: 1,
        reconcileInvocations: 1,
      },
      containers: { started: 0, killed: 0, timedOut: 0 },
      history: [],
      logAfterFaults: [],
    };
  };

  it('replays with the share and the cluster count, which draw every cluster as it ran', () => {
    // Act
    const command = replayCommand(run());
    // Assess
    expect(command).toContain('--own-kind 0.5 --clusters 3');
  });

  it("names every cluster's kind and counts every cluster's windows and clusters in the summary", () => {
    // Prepare
    const r = run();
    // Act
    const line = describeRun(r);
    const summary = summarise([r]);
    // Assess
    expect(line).toContain(
      `(${[r.kind, ...r.otherClusters.map((c) => c.kind)].join(', ')})`
    );
    expect(line).toContain(
      `${r.plan.windows.length} + ${r.otherClusters[0]?.plan.windows.length} + ${r.otherClusters[1]?.plan.windows.length} windows`
    );
    expect(summary.clusters).toBe(3);
  });

  it('says how many invocations ended at their timeout, and nothing when none did', () => {
    // Prepare
    const slow = {
      ...run(),
      containers: { started: 4, killed: 2, timedOut: 2 },
    };
    // Act
    const lines = [describeRun(slow), describeRun(run())];
    // Assess
    expect(lines[0]).toMatch(/; 2 invocations at their timeout$/);
    expect(lines[1]).not.toContain('at their timeout');
  });
});

describe('overloadedBeds', () => {
  it('counts runs only on a machine whose last warm-up round ran within the limit', () => {
    // Act
    const within = overloadedBeds(
      [{ wallMs: 45_000 }, { wallMs: 46_000 }],
      60_000
    );
    const over = overloadedBeds(
      [{ wallMs: 45_000 }, { wallMs: 81_000 }],
      60_000
    );
    const unchecked = overloadedBeds([{ wallMs: 200_000 }], undefined);
    // Assess
    expect(within).toBeUndefined();
    expect(over).toContain('up to 81.0 s a run (limit 60 s)');
    expect(unchecked).toBeUndefined();
  });
});
