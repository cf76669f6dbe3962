import { describe, expect, it } from 'vitest';
import {
  newControllerRevision,
  pickRevisionToKeep,
} from '#lib/reconcile/revision-history.js';
import {
  calculateStatus,
  isStatusUpToDate,
  type StatusCounters,
  withStatus,
} from '#lib/reconcile/status.js';
import type { DaemonSet, Pod } from '#lib/reconcile/types.js';
import {
  makeNodes,
  makePods,
  markPodReady,
  newDaemonSet,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';

const zero: StatusCounters = {
  desiredNumberScheduled: 0,
  currentNumberScheduled: 0,
  numberMisscheduled: 0,
  numberReady: 0,
  updatedNumberScheduled: 0,
  numberAvailable: 0,
  numberUnavailable: 0,
};

describe('calculateStatus', () => {
  it('counts the oldest pod per node, misscheduled pods and availability', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    if (ds.spec) {
      ds.spec.minReadySeconds = 10;
      ds.spec.template.spec = { containers: [], nodeSelector: { run: 'yes' } };
    }
    const nodes = [...makeNodes(0, 2, { run: 'yes' }), ...makeNodes(2, 1)];
    const older = (p: Pod, t: string): Pod => ({
      ...p,
      metadata: { ...p.metadata, creationTimestamp: t },
    });
    const [a0] = makePods('node-0', simpleDaemonSetLabel, ds, 1);
    const [b0] = makePods('node-0', simpleDaemonSetLabel, undefined, 1);
    const byNode = new Map<string, Pod[]>([
      [
        'node-0',
        [
          older(b0 as Pod, '2026-01-02T00:00:00Z'),
          markPodReady(older(a0 as Pod, '2026-01-01T00:00:00Z'), 0),
        ],
      ],
      ['node-2', makePods('node-2', simpleDaemonSetLabel, ds, 1)],
      ['gone', makePods('gone', simpleDaemonSetLabel, ds, 1)],
    ]);
    const hash = a0?.metadata?.labels?.['controller-revision-hash'] ?? '';
    // Act
    const early = calculateStatus(ds, nodes, byNode, hash, 5_000);
    const later = calculateStatus(ds, nodes, byNode, hash, 10_000);
    // Assess
    expect(early).toEqual({
      desiredNumberScheduled: 2,
      currentNumberScheduled: 1,
      numberMisscheduled: 1,
      numberReady: 1,
      updatedNumberScheduled: 1,
      numberAvailable: 0,
      numberUnavailable: 2,
    });
    expect(later.numberAvailable).toBe(1);
  });
});

describe('isStatusUpToDate / withStatus', () => {
  it('needs a write when a counter differs or the generation is not observed', () => {
    // Prepare
    const ds: DaemonSet = {
      metadata: { generation: 2 },
      status: { ...zero, observedGeneration: 2 },
    };
    // Act / Assess
    expect(isStatusUpToDate(ds, zero)).toBe(true);
    expect(isStatusUpToDate(ds, { ...zero, numberReady: 1 })).toBe(false);
    expect(
      isStatusUpToDate(
        { ...ds, status: { ...zero, observedGeneration: 1 } },
        zero
      )
    ).toBe(false);
    expect(isStatusUpToDate({}, zero)).toBe(true);
  });

  it('keeps conditions and collisionCount and sets observedGeneration only when asked', () => {
    // Prepare
    const ds: DaemonSet = {
      metadata: { generation: 3 },
      status: {
        ...zero,
        collisionCount: 2,
        conditions: [{ type: 'X', status: 'True' }],
      },
    };
    // Act
    const kept = withStatus(ds, { ...zero, numberReady: 1 }, undefined);
    const observed = withStatus(ds, zero, 3);
    // Assess
    expect(kept.status).toMatchObject({
      numberReady: 1,
      collisionCount: 2,
      conditions: [{ type: 'X', status: 'True' }],
    });
    expect(kept.status?.observedGeneration).toBeUndefined();
    expect(observed.status?.observedGeneration).toBe(3);
  });
});

describe('revision history decisions', () => {
  it('keeps the highest duplicate, the last one on a tie', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const r = (hash: string, revision: number) =>
      newControllerRevision(ds, hash, revision);
    // Act / Assess
    expect(pickRevisionToKeep([r('a', 3), r('b', 1)])?.metadata?.name).toBe(
      'foo-a'
    );
    expect(pickRevisionToKeep([r('a', 2), r('b', 2)])?.metadata?.name).toBe(
      'foo-b'
    );
    expect(pickRevisionToKeep([])).toBeUndefined();
  });

  it('copies annotations only when the DaemonSet has some', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const bare: DaemonSet = {
      ...ds,
      metadata: { ...ds.metadata, annotations: undefined },
    };
    // Act / Assess
    expect(newControllerRevision(ds, 'h', 1).metadata?.annotations).toEqual(
      ds.metadata?.annotations
    );
    expect(newControllerRevision(bare, 'h', 1).metadata).not.toHaveProperty(
      'annotations'
    );
  });
});
