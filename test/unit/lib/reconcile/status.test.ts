/**
 * Tests for lib/reconcile/status.ts: the counting loop of upstream
 * `updateDaemonSetStatus` (oldest pod per node, misscheduled pods,
 * readiness vs availability) and the skip rule of `storeDaemonSetStatus`.
 */
import { describe, expect, it } from 'vitest';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  TEMPLATE_GENERATION_LABEL,
} from '#lib/reconcile/k8s/types.js';
import {
  calculateStatus,
  INVALID_SPEC_CONDITION,
  invalidSpecCondition,
  isStatusUpToDate,
  type StatusCounters,
  withInvalidSpec,
  withStatus,
} from '#lib/reconcile/status.js';
import {
  makeNodes,
  markPodReady,
  newDaemonSet,
  newPod,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';

const T = Date.UTC(2026, 0, 1);
const HASH = 'cur';

const zero: StatusCounters = {
  desiredNumberScheduled: 0,
  currentNumberScheduled: 0,
  numberMisscheduled: 0,
  numberReady: 0,
  updatedNumberScheduled: 0,
  numberAvailable: 0,
  numberUnavailable: 0,
};

/** A pod on `node` created at `createdMs`, labelled with `hash`. */
const podAt = (node: string, createdMs: number, hash: string): Pod => {
  const pod = newPod(`${node}-`, node, {
    ...simpleDaemonSetLabel,
    [CONTROLLER_REVISION_HASH_LABEL]: hash,
  });
  pod.metadata = {
    ...pod.metadata,
    creationTimestamp: new Date(createdMs).toISOString(),
  };
  return pod;
};

/** A DaemonSet that runs only on nodes labelled run=yes. */
const selectiveDs = (minReadySeconds = 0): DaemonSet => {
  const ds = newDaemonSet('foo');
  if (ds.spec?.template.spec) {
    ds.spec.minReadySeconds = minReadySeconds;
    ds.spec.template.spec.nodeSelector = { run: 'yes' };
  }
  return ds;
};

describe('calculateStatus', () => {
  it('counts desired, current, ready, available and unavailable nodes', () => {
    // Prepare
    const ds = selectiveDs();
    const nodes = makeNodes(0, 3, { run: 'yes' });
    const byNode = new Map<string, Pod[]>([
      ['node-0', [markPodReady(podAt('node-0', T, HASH), T)]],
      ['node-1', [podAt('node-1', T, HASH)]],
    ]);
    // Act
    const got = calculateStatus(ds, nodes, byNode, HASH, T);
    // Assess
    expect(got).toEqual({
      desiredNumberScheduled: 3,
      currentNumberScheduled: 2,
      numberMisscheduled: 0,
      numberReady: 1,
      updatedNumberScheduled: 2,
      numberAvailable: 1,
      numberUnavailable: 2,
    });
  });

  it('measures the oldest pod of a surging node, so it is not yet updated', () => {
    // Prepare
    const ds = selectiveDs();
    const nodes = makeNodes(0, 1, { run: 'yes' });
    const oldReady = markPodReady(podAt('node-0', T, 'old'), T);
    const newer = podAt('node-0', T + 1_000, HASH);
    // Act
    const got = calculateStatus(
      ds,
      nodes,
      new Map([['node-0', [newer, oldReady]]]),
      HASH,
      T
    );
    // Assess
    expect(got).toMatchObject({
      currentNumberScheduled: 1,
      numberReady: 1,
      updatedNumberScheduled: 0,
    });
  });

  it('counts a node that should not run but has pods as misscheduled, once', () => {
    // Prepare
    const ds = selectiveDs();
    const nodes = [...makeNodes(0, 1, { run: 'yes' }), ...makeNodes(1, 2)];
    const byNode = new Map<string, Pod[]>([
      ['node-1', [podAt('node-1', T, HASH), podAt('node-1', T, HASH)]],
    ]);
    // Act
    const got = calculateStatus(ds, nodes, byNode, HASH, T);
    // Assess
    expect(got).toEqual({
      ...zero,
      desiredNumberScheduled: 1,
      numberMisscheduled: 1,
      numberUnavailable: 1,
    });
  });

  it('ignores pods on nodes missing from the node list', () => {
    // Prepare
    const ds = selectiveDs();
    const byNode = new Map<string, Pod[]>([
      ['gone', [markPodReady(podAt('gone', T, HASH), T)]],
    ]);
    // Act
    const got = calculateStatus(ds, [], byNode, HASH, T);
    // Assess
    expect(got).toEqual(zero);
  });

  it('counts ready pods as available only after minReadySeconds', () => {
    // Prepare
    const ds = selectiveDs(10);
    const nodes = makeNodes(0, 1, { run: 'yes' });
    const byNode = new Map([
      ['node-0', [markPodReady(podAt('node-0', T, HASH), T)]],
    ]);
    // Act
    const early = calculateStatus(ds, nodes, byNode, HASH, T + 9_999);
    const onTime = calculateStatus(ds, nodes, byNode, HASH, T + 10_000);
    // Assess
    expect(early).toMatchObject({ numberReady: 1, numberAvailable: 0 });
    expect(early.numberUnavailable).toBe(1);
    expect(onTime).toMatchObject({ numberReady: 1, numberAvailable: 1 });
    expect(onTime.numberUnavailable).toBe(0);
  });

  it('counts a pod as updated by its template generation label', () => {
    // Prepare
    const ds = selectiveDs();
    const nodes = makeNodes(0, 1, { run: 'yes' });
    const pod = podAt('node-0', T, 'old');
    pod.metadata = {
      ...pod.metadata,
      labels: { ...pod.metadata?.labels, [TEMPLATE_GENERATION_LABEL]: '1' },
    };
    // Act
    const got = calculateStatus(
      ds,
      nodes,
      new Map([['node-0', [pod]]]),
      HASH,
      T
    );
    // Assess
    expect(got.updatedNumberScheduled).toBe(1);
  });

  it('measures a bound pod before an unbound one on the same node', () => {
    // Prepare
    const ds = selectiveDs();
    const nodes = makeNodes(0, 1, { run: 'yes' });
    const unboundOlder = markPodReady(podAt('', T - 5_000, HASH), T);
    const bound = podAt('node-0', T, 'old');
    // Act
    const got = calculateStatus(
      ds,
      nodes,
      new Map([['node-0', [unboundOlder, bound]]]),
      HASH,
      T
    );
    // Assess
    expect(got).toMatchObject({ numberReady: 0, updatedNumberScheduled: 0 });
  });
});

describe('isStatusUpToDate', () => {
  const stored = (generation: number, observed?: number): DaemonSet => ({
    metadata: { generation },
    status: {
      ...zero,
      ...(observed === undefined ? {} : { observedGeneration: observed }),
    },
  });

  it('needs no write when every counter matches and the generation is observed', () => {
    // Act / Assess
    expect(isStatusUpToDate(stored(2, 2), zero)).toBe(true);
    expect(isStatusUpToDate(stored(2, 3), zero)).toBe(true);
  });

  it.each([
    'desiredNumberScheduled',
    'currentNumberScheduled',
    'numberMisscheduled',
    'numberReady',
    'updatedNumberScheduled',
    'numberAvailable',
    'numberUnavailable',
  ] as const)('needs a write when %s differs', (key) => {
    // Act / Assess
    expect(isStatusUpToDate(stored(2, 2), { ...zero, [key]: 1 })).toBe(false);
  });

  it('needs a write when the generation is not observed yet', () => {
    // Act / Assess
    expect(isStatusUpToDate(stored(2, 1), zero)).toBe(false);
    expect(isStatusUpToDate(stored(2), zero)).toBe(false);
  });

  it('reads absent counters and generations as 0', () => {
    // Act / Assess
    expect(isStatusUpToDate({}, zero)).toBe(true);
    expect(isStatusUpToDate({}, { ...zero, numberReady: 1 })).toBe(false);
  });
});

describe('withStatus', () => {
  it('keeps conditions and collisionCount and sets observedGeneration only when asked', () => {
    // Prepare
    const ds: DaemonSet = {
      metadata: { name: 'foo', generation: 3 },
      status: {
        ...zero,
        observedGeneration: 2,
        collisionCount: 2,
        conditions: [{ type: 'X', status: 'True' }],
      },
    };
    const before = structuredClone(ds);
    // Act
    const kept = withStatus(ds, { ...zero, numberReady: 1 }, undefined);
    const observed = withStatus(ds, zero, 3);
    // Assess
    expect(kept.status).toEqual({
      ...zero,
      numberReady: 1,
      observedGeneration: 2,
      collisionCount: 2,
      conditions: [{ type: 'X', status: 'True' }],
    });
    expect(observed.status?.observedGeneration).toBe(3);
    expect(observed.metadata).toEqual(ds.metadata);
    expect(ds).toEqual(before);
  });

  it('writes a status onto a DaemonSet that had none', () => {
    // Act
    const got = withStatus({}, zero, 1);
    // Assess
    expect(got.status).toEqual({ ...zero, observedGeneration: 1 });
  });
});

describe('the InvalidSpec condition', () => {
  const NOW = '2026-01-01T00:00:00Z';
  const LATER = '2026-01-01T00:05:00Z';

  it('is added beside other conditions, counters untouched', () => {
    const ds = newDaemonSet('ads');
    ds.status = {
      ...zero,
      numberReady: 2,
      conditions: [{ type: 'Other', status: 'True' }],
    };
    const out = withInvalidSpec(ds, 'bad', NOW);
    expect(out?.status?.numberReady).toBe(2);
    expect(out?.status?.conditions).toEqual([
      { type: 'Other', status: 'True' },
      {
        type: INVALID_SPEC_CONDITION,
        status: 'True',
        reason: 'InvalidSpec',
        message: 'bad',
        observedGeneration: ds.metadata?.generation,
        lastTransitionTime: NOW,
      },
    ]);
  });

  it('fills zero counters on a DaemonSet that never had a status (nor a generation)', () => {
    const ds = newDaemonSet('ads');
    if (ds.metadata) ds.metadata.generation = undefined;
    const out = withInvalidSpec(ds, 'bad', NOW);
    expect(invalidSpecCondition(out as DaemonSet)?.observedGeneration).toBe(0);
    expect(out?.status).toMatchObject({
      currentNumberScheduled: 0,
      desiredNumberScheduled: 0,
      numberMisscheduled: 0,
      numberReady: 0,
    });
  });

  it('needs no write when it already says the same, and keeps its transition time when the message changes', () => {
    const ds = withInvalidSpec(newDaemonSet('ads'), 'bad', NOW) as DaemonSet;
    expect(withInvalidSpec(ds, 'bad', LATER)).toBeUndefined();
    const edited = structuredClone(ds);
    if (edited.metadata) edited.metadata.generation = 2;
    expect(
      invalidSpecCondition(withInvalidSpec(edited, 'bad', LATER) as DaemonSet)
    ).toMatchObject({
      observedGeneration: 2,
      lastTransitionTime: NOW,
    });
    expect(
      invalidSpecCondition(withInvalidSpec(ds, 'worse', LATER) as DaemonSet)
    ).toMatchObject({
      message: 'worse',
      lastTransitionTime: NOW,
    });
  });

  it('makes a status stale, and withStatus drops it', () => {
    const ds = withInvalidSpec(
      withStatus(newDaemonSet('ads'), zero, 1),
      'bad',
      NOW
    ) as DaemonSet;
    expect(isStatusUpToDate(ds, zero)).toBe(false);
    const fixed = withStatus(ds, zero, 1);
    expect(fixed.status?.conditions).toEqual([]);
    expect(isStatusUpToDate(fixed, zero)).toBe(true);
  });
});
