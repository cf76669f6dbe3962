import { describe, expect, it } from 'vitest';
import { InvalidObjectError, SyncError } from '#lib/errors.js';
import {
  allowsSurge,
  findUpdatedPodsOnNode,
  getScaledValueFromIntOrPercent,
  planRollingUpdate,
  surgeCount,
  unavailableCount,
  updatedDesiredNodeCounts,
} from '#lib/reconcile/rolling-update.js';
import type { DaemonSet, Pod } from '#lib/reconcile/types.js';
import {
  makeNodes,
  markPodDeleting,
  markPodReady,
  newDaemonSet,
  newPod,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';
import {
  newUpdateSurge,
  newUpdateUnavailable,
} from '../../../helpers/rollout.js';

type Strategy = NonNullable<DaemonSet['spec']>['updateStrategy'];

const dsWith = (strategy: Strategy): DaemonSet => {
  const ds = newDaemonSet('x');
  if (ds.spec) ds.spec.updateStrategy = strategy;
  return ds;
};

const readyPod = (name: string, node: string): Pod =>
  markPodReady(newPod(`${name}-`, node, simpleDaemonSetLabel), 0);

describe('updatedDesiredNodeCounts', () => {
  const cases: {
    name: string;
    strategy: Strategy;
    nodes: number;
    pods: Record<string, Pod[]>;
    maxSurge: number;
    maxUnavailable: number;
    emptyNodes: number;
  }[] = [
    {
      name: 'No nodes',
      strategy: newUpdateUnavailable(0),
      nodes: 0,
      pods: {},
      maxSurge: 0,
      maxUnavailable: 0,
      emptyNodes: 0,
    },
    {
      name: 'Two nodes with ready pods',
      strategy: newUpdateUnavailable(1),
      nodes: 2,
      pods: {
        'node-0': [readyPod('pod-0', 'node-0')],
        'node-1': [readyPod('pod-1', 'node-1')],
      },
      maxSurge: 0,
      maxUnavailable: 1,
      emptyNodes: 0,
    },
    {
      name: 'Two nodes, one node without pods',
      strategy: newUpdateUnavailable(0),
      nodes: 2,
      pods: { 'node-0': [readyPod('pod-0', 'node-0')] },
      maxSurge: 0,
      maxUnavailable: 1,
      emptyNodes: 1,
    },
    {
      name: 'Two nodes, one node without pods, surge',
      strategy: newUpdateSurge(0),
      nodes: 2,
      pods: { 'node-0': [readyPod('pod-0', 'node-0')] },
      maxSurge: 0,
      maxUnavailable: 1,
      emptyNodes: 1,
    },
    {
      name: 'Two nodes with pods, MaxUnavailable in percents',
      strategy: newUpdateUnavailable('50%'),
      nodes: 2,
      pods: {
        'node-0': [readyPod('pod-0', 'node-0')],
        'node-1': [readyPod('pod-1', 'node-1')],
      },
      maxSurge: 0,
      maxUnavailable: 1,
      emptyNodes: 0,
    },
    {
      name: 'Two nodes with pods, MaxUnavailable in percents, surge',
      strategy: newUpdateSurge('50%'),
      nodes: 2,
      pods: {
        'node-0': [readyPod('pod-0', 'node-0')],
        'node-1': [readyPod('pod-1', 'node-1')],
      },
      maxSurge: 1,
      maxUnavailable: 0,
      emptyNodes: 0,
    },
    {
      name: 'Two nodes with pods, MaxUnavailable is 100%, surge',
      strategy: newUpdateSurge('100%'),
      nodes: 2,
      pods: {
        'node-0': [readyPod('pod-0', 'node-0')],
        'node-1': [readyPod('pod-1', 'node-1')],
      },
      maxSurge: 2,
      maxUnavailable: 0,
      emptyNodes: 0,
    },
    {
      name: 'Three nodes, MaxUnavailable 50% rounds up',
      strategy: newUpdateUnavailable('50%'),
      nodes: 3,
      pods: {
        'node-0': [readyPod('pod-0', 'node-0')],
        'node-1': [markPodDeleting(readyPod('pod-1', 'node-1'), 0)],
      },
      maxSurge: 0,
      maxUnavailable: 2,
      emptyNodes: 1,
    },
  ];
  it.each(cases)(
    'TestGetUnavailableNumbers: $name',
    ({ strategy, nodes, pods, maxSurge, maxUnavailable, emptyNodes }) => {
      // Prepare
      const ds = dsWith(strategy);
      // Act
      const budget = updatedDesiredNodeCounts(
        ds,
        makeNodes(0, nodes),
        new Map(Object.entries(pods))
      );
      // Assess
      expect({
        maxSurge: budget.maxSurge,
        maxUnavailable: budget.maxUnavailable,
      }).toEqual({ maxSurge, maxUnavailable });
      expect(
        [...budget.nodeToDaemonPods.values()].filter((p) => p.length === 0)
      ).toHaveLength(emptyNodes);
    }
  );

  it('keeps nodes that should not run but still have pods', () => {
    // Prepare
    const ds = dsWith(newUpdateUnavailable(1));
    // Act
    const budget = updatedDesiredNodeCounts(
      ds,
      makeNodes(0, 1),
      new Map([['gone', [readyPod('p', 'gone')]]])
    );
    // Assess
    expect([...budget.nodeToDaemonPods.keys()].sort()).toEqual([
      'gone',
      'node-0',
    ]);
    expect(budget.desiredNumberScheduled).toBe(1);
  });

  it('turns an invalid budget into an InvalidObjectError', () => {
    // Prepare
    const ds = dsWith(newUpdateUnavailable('half'));
    // Act / Assess
    expect(() =>
      updatedDesiredNodeCounts(ds, makeNodes(0, 1), new Map())
    ).toThrow(InvalidObjectError);
  });
});

describe('budget arithmetic (util.SurgeCount, util.UnavailableCount)', () => {
  it.each([
    { value: 3, total: 10, want: 3 },
    { value: '10%', total: 10, want: 1 },
    { value: '15%', total: 10, want: 2 },
    { value: '0%', total: 10, want: 0 },
    { value: '100%', total: 3, want: 3 },
  ])(
    'scales $value of $total to $want (rounding up)',
    ({ value, total, want }) => {
      // Act / Assess
      expect(getScaledValueFromIntOrPercent(value, total)).toBe(want);
    }
  );

  it.each([{ value: undefined }, { value: '50' }, { value: 'x%' }])(
    'rejects $value',
    ({ value }) => {
      // Act / Assess
      expect(() => getScaledValueFromIntOrPercent(value, 10)).toThrow(
        InvalidObjectError
      );
    }
  );

  it('counts 0 outside RollingUpdate and without rollingUpdate or maxSurge', () => {
    // Prepare
    const onDelete = dsWith({
      type: 'OnDelete',
      rollingUpdate: { maxSurge: 3, maxUnavailable: 3 },
    });
    const bare = dsWith({ type: 'RollingUpdate' });
    const noSurge = dsWith(newUpdateUnavailable(2));
    // Act / Assess
    expect([surgeCount(onDelete, 5), unavailableCount(onDelete, 5)]).toEqual([
      0, 0,
    ]);
    expect([surgeCount(bare, 5), unavailableCount(bare, 5)]).toEqual([0, 0]);
    expect(surgeCount(noSurge, 5)).toBe(0);
  });

  it('allows surge only for a valid non-zero maxSurge', () => {
    // Act / Assess
    expect(allowsSurge(dsWith(newUpdateSurge(1)))).toBe(true);
    expect(allowsSurge(dsWith(newUpdateSurge('1%')))).toBe(true);
    expect(allowsSurge(dsWith(newUpdateSurge(0)))).toBe(false);
    expect(allowsSurge(dsWith(newUpdateSurge('bad')))).toBe(false);
  });
});

describe('findUpdatedPodsOnNode', () => {
  it('refuses a node with two old or two new pods', () => {
    // Prepare
    const ds = newDaemonSet('x');
    const a = newPod('a-', 'n', simpleDaemonSetLabel);
    const b = newPod('b-', 'n', simpleDaemonSetLabel);
    const newA = newPod('c-', 'n', {
      ...simpleDaemonSetLabel,
      'controller-revision-hash': 'h',
    });
    const newB = newPod('d-', 'n', {
      ...simpleDaemonSetLabel,
      'controller-revision-hash': 'h',
    });
    // Act / Assess
    expect(findUpdatedPodsOnNode(ds, [a, b], 'h').ok).toBe(false);
    expect(findUpdatedPodsOnNode(ds, [newA, newB], 'h').ok).toBe(false);
    expect(findUpdatedPodsOnNode(ds, [a, newA], 'h')).toEqual({
      oldPod: a,
      newPod: newA,
      ok: true,
    });
  });
});

describe('planRollingUpdate with surge', () => {
  it('fails like upstream when a node with pods is missing from the node list', () => {
    // Prepare
    const ds = dsWith(newUpdateSurge(1));
    const pods = new Map([['gone', [readyPod('p', 'gone')]]]);
    // Act / Assess
    expect(() => planRollingUpdate(ds, makeNodes(0, 1), pods, 'h', 0)).toThrow(
      SyncError
    );
  });

  it('deletes an unavailable old pod on a node that should no longer run it', () => {
    // Prepare
    const ds = dsWith(newUpdateSurge(1));
    const nodes = makeNodes(0, 1);
    const [node] = nodes;
    if (node) node.spec = { taints: [{ key: 'k', effect: 'NoSchedule' }] };
    const unready = newPod('p-', 'node-0', simpleDaemonSetLabel);
    // Act
    const plan = planRollingUpdate(
      ds,
      nodes,
      new Map([['node-0', [unready]]]),
      'h',
      0
    );
    // Assess
    expect(plan).toEqual({
      podsToDelete: [unready.metadata?.name],
      nodesNeedingDaemonPods: [],
    });
  });

  it('counts a node with two pods as surging', () => {
    // Prepare
    const ds = dsWith(newUpdateSurge(1));
    const pods = new Map([
      ['node-0', [readyPod('a', 'node-0'), readyPod('b', 'node-0')]],
      ['node-1', [readyPod('c', 'node-1')]],
    ]);
    // Act
    const plan = planRollingUpdate(ds, makeNodes(0, 2), pods, 'h', 0);
    // Assess: the only surge slot is taken by node-0.
    expect(plan.nodesNeedingDaemonPods).toEqual([]);
  });
});

describe('planRollingUpdate branches', () => {
  const hashed = (name: string, node: string, hash: string): Pod =>
    markPodReady(
      newPod(`${name}-`, node, {
        ...simpleDaemonSetLabel,
        'controller-revision-hash': hash,
      }),
      0
    );

  it('deletes the old pod of a surged node once its new pod is available', () => {
    // Prepare
    const ds = dsWith(newUpdateSurge(1));
    const old = hashed('old', 'node-0', 'o');
    const pods = new Map([['node-0', [old, hashed('new', 'node-0', 'h')]]]);
    // Act
    const plan = planRollingUpdate(ds, makeNodes(0, 1), pods, 'h', 0);
    // Assess
    expect(plan.podsToDelete).toEqual([old.metadata?.name]);
  });

  it('skips available old pods once the unavailability budget is spent', () => {
    // Prepare
    const ds = dsWith(newUpdateUnavailable(1));
    const pods = new Map([
      [
        'node-0',
        [
          newPod('unready-', 'node-0', {
            ...simpleDaemonSetLabel,
            'controller-revision-hash': 'h',
          }),
        ],
      ],
      ['node-1', [hashed('old', 'node-1', 'o')]],
    ]);
    // Act
    const plan = planRollingUpdate(ds, makeNodes(0, 2), pods, 'h', 0);
    // Assess
    expect(plan.podsToDelete).toEqual([]);
  });
});
