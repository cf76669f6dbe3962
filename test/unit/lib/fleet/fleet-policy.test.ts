import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '#lib/fleet/duration.js';
import {
  InvalidFleetPolicyError,
  parseFleetPolicy,
} from '#lib/fleet/fleet-policy.js';

/** The spec's example policy. */
const example = () => ({
  apiVersion: 'fleet.dsr.dev/v1alpha1',
  kind: 'FleetRolloutPolicy',
  metadata: { name: 'node-agent' },
  spec: {
    target: { namespace: 'kube-system', name: 'node-agent', kind: 'DaemonSet' },
    clusters: { selector: { matchLabels: { tier: 'prod' } } },
    waves: [
      {
        name: 'canary',
        clusters: { ids: ['prod-eu-1'] },
        nodeSteps: [
          { partition: '90%', bake: '10m' },
          { partition: 0, bake: '10m' },
        ],
      },
      {
        name: 'rest',
        clusters: { selector: { matchLabels: { tier: 'prod' } } },
        maxConcurrentClusters: '25%',
        nodeSteps: [{ partition: 0, bake: '5m' }],
        approval: 'manual',
      },
    ],
    health: { progressDeadline: '15m', maxRestartsPerPod: 3 },
    failureBudget: { maxFailedClusters: 1, maxFailedNodesPerCluster: '2%' },
    onUnknown: 'hold',
    onFailure: 'halt',
  },
});

const problemsOf = (doc: unknown): readonly string[] => {
  try {
    parseFleetPolicy(doc);
    return [];
  } catch (e) {
    if (e instanceof InvalidFleetPolicyError) return e.problems;
    throw e;
  }
};

describe('parseFleetPolicy', () => {
  it('reads the example policy, with defaults for what it leaves out', () => {
    // Act
    const policy = parseFleetPolicy(example());
    // Assess
    expect(policy.name).toBe('node-agent');
    expect(policy.target).toEqual({
      namespace: 'kube-system',
      name: 'node-agent',
      kind: 'DaemonSet',
    });
    expect(
      policy.waves.map((w) => [
        w.name,
        w.maxConcurrentClusters,
        w.manualApproval,
      ])
    ).toEqual([
      ['canary', 1, false],
      ['rest', '25%', true],
    ]);
    expect(policy.waves[0]?.nodeSteps).toEqual([
      { partition: '90%', bakeMs: 600_000 },
      { partition: 0, bakeMs: 600_000 },
    ]);
    expect(policy.health).toEqual({
      progressDeadlineMs: 900_000,
      maxRestartsPerPod: 3,
      failOnWaitingReasons: [
        'CrashLoopBackOff',
        'ImagePullBackOff',
        'ErrImagePull',
        'CreateContainerConfigError',
      ],
    });
    expect(policy.failureBudget).toEqual({
      maxFailedClusters: 1,
      maxFailedNodesPerCluster: '2%',
    });
  });

  it('names every problem by its field path', () => {
    // Prepare
    const doc = example();
    const spec = doc.spec as Record<string, unknown>;
    spec.waves = [
      {
        name: 'a',
        clusters: {},
        nodeSteps: [{ partition: 'half', bake: '10 minutes' }],
      },
      {
        name: 'a',
        clusters: { ids: ['x'] },
        maxConcurrentClusters: -1,
        approval: 'maybe',
      },
    ];
    spec.onUnknown = 'ignore';
    spec.extra = true;
    // Act / Assess
    expect(problemsOf(doc)).toEqual([
      'spec.extra: unknown field (one of target, clusters, waves, health, failureBudget, onUnknown, onFailure)',
      'spec.waves[0].clusters.ids: give ids or selector',
      'spec.waves[0].nodeSteps[0].partition: must be a whole number or a percentage such as "25%", not "half"',
      'spec.waves[0].nodeSteps[0].bake: must be a duration such as "90s", "10m" or "1h30m", not "10 minutes"',
      'spec.waves[1].maxConcurrentClusters: must be a whole number or a percentage such as "25%", not -1',
      'spec.waves[1].approval: must be one of automatic, manual',
      'spec.waves[1].name: "a" names another wave too',
      'spec.onUnknown: must be one of hold, countAsFailed',
    ]);
  });

  it('refuses a document of another kind, and one without waves', () => {
    expect(
      problemsOf({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: { waves: [] },
      })
    ).toEqual([
      'apiVersion: must be fleet.dsr.dev/v1alpha1',
      'kind: must be FleetRolloutPolicy',
      'spec.target: required',
      'spec.waves: must name at least one wave',
      'spec.target.namespace: required',
      'spec.target.name: required',
      'spec.clusters: required',
    ]);
  });
});

describe('parseDuration', () => {
  it('reads Go durations and refuses anything else', () => {
    expect(
      ['0', '90s', '10m', '1h30m', '500ms', '1.5h'].map(parseDuration)
    ).toEqual([0, 90_000, 600_000, 5_400_000, 500, 5_400_000]);
    expect(['', '10', '10 m', 'm', '5d'].map(parseDuration)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect([0, 45_000, 600_000, 5_400_000].map(formatDuration)).toEqual([
      '0s',
      '45s',
      '10m',
      '1h30m',
    ]);
  });
});
