/**
 * Table tests for lib/reconcile/rolling-update.ts: upstream
 * `TestGetUnavailableNumbers` (pkg/controller/daemon/update_test.go), the
 * budgets of util.SurgeCount / UnavailableCount / AllowsSurge with
 * intstr.GetScaledValueFromIntOrPercent, `findUpdatedPodsOnNode` and every
 * branch of the two `rollingUpdate` planners.
 */
import { describe, expect, it } from 'vitest';
import { InvalidObjectError, SyncError } from '#lib/errors.js';
import { getScaledValueFromIntOrPercent } from '#lib/reconcile/k8s/int-or-string.js';
import type { DaemonSet, Node, Pod } from '#lib/reconcile/k8s/types.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  TEMPLATE_GENERATION_LABEL,
} from '#lib/reconcile/k8s/types.js';
import { planRollingUpdate } from '#lib/reconcile/rolling-update.js';
import {
  allowsSurge,
  surgeCount,
  unavailableCount,
  updatedDesiredNodeCounts,
} from '#lib/reconcile/update-budget.js';
import { findUpdatedPodsOnNode } from '#lib/reconcile/updated-pods.js';
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

const NOW = Date.UTC(2026, 0, 1);
const HASH = 'newhash';

const dsWith = (strategy: Strategy, minReadySeconds = 0): DaemonSet => {
  const ds = newDaemonSet('x');
  if (ds.spec) {
    ds.spec.updateStrategy = strategy;
    ds.spec.minReadySeconds = minReadySeconds;
  }
  return ds;
};

/** A ready pod on the node; `updated` gives it the current hash. */
const podOn = (node: string, updated: boolean, ready = true): Pod => {
  const pod = newPod(`${node}-`, node, {
    ...simpleDaemonSetLabel,
    [CONTROLLER_REVISION_HASH_LABEL]: updated ? HASH : 'oldhash',
  });
  return ready ? markPodReady(pod, NOW - 60_000) : pod;
};

const names = (pods: readonly Pod[]): string[] =>
  pods.map((p) => p.metadata?.name ?? '');

describe('updatedDesiredNodeCounts', () => {
  const readyPods = (n: number) =>
    new Map<string, Pod[]>(
      Array.from({ length: n }, (_, i) => [
        `node-${i}`,
        [
          markPodReady(
            newPod(`pod-${i}`, `node-${i}`, simpleDaemonSetLabel),
            0
          ),
        ],
      ])
    );

  it.each([
    {
      name: 'No nodes',
      strategy: newUpdateUnavailable(0),
      nodes: 0,
      nodeToPods: new Map<string, Pod[]>(),
      maxSurge: 0,
      maxUnavailable: 0,
      desiredNumberScheduled: 0,
      emptyNodes: 0,
    },
    {
      name: 'Two nodes with ready pods',
      strategy: newUpdateUnavailable(1),
      nodes: 2,
      nodeToPods: readyPods(2),
      maxSurge: 0,
      maxUnavailable: 1,
      desiredNumberScheduled: 2,
      emptyNodes: 0,
    },
    {
      name: 'Two nodes, one node without pods',
      strategy: newUpdateUnavailable(0),
      nodes: 2,
      nodeToPods: readyPods(1),
      maxSurge: 0,
      maxUnavailable: 1,
      desiredNumberScheduled: 2,
      emptyNodes: 1,
    },
    {
      name: 'Two nodes, one node without pods, surge',
      strategy: newUpdateSurge(0),
      nodes: 2,
      nodeToPods: readyPods(1),
      maxSurge: 0,
      maxUnavailable: 1,
      desiredNumberScheduled: 2,
      emptyNodes: 1,
    },
    {
      name: 'Two nodes with pods, MaxUnavailable in percents',
      strategy: newUpdateUnavailable('50%'),
      nodes: 2,
      nodeToPods: readyPods(2),
      maxSurge: 0,
      maxUnavailable: 1,
      desiredNumberScheduled: 2,
      emptyNodes: 0,
    },
    {
      name: 'Two nodes with pods, MaxUnavailable in percents, surge',
      strategy: newUpdateSurge('50%'),
      nodes: 2,
      nodeToPods: readyPods(2),
      maxSurge: 1,
      maxUnavailable: 0,
      desiredNumberScheduled: 2,
      emptyNodes: 0,
    },
    {
      name: 'Two nodes with pods, MaxUnavailable is 100%, surge',
      strategy: newUpdateSurge('100%'),
      nodes: 2,
      nodeToPods: readyPods(2),
      maxSurge: 2,
      maxUnavailable: 0,
      desiredNumberScheduled: 2,
      emptyNodes: 0,
    },
    {
      name: 'Two nodes with pods, MaxUnavailable in percents, pod terminating',
      strategy: newUpdateUnavailable('50%'),
      nodes: 3,
      nodeToPods: new Map<string, Pod[]>([
        ...readyPods(1),
        [
          'node-1',
          [
            markPodDeleting(
              markPodReady(
                newPod('pod-1', 'node-1', simpleDaemonSetLabel),
                NOW
              ),
              NOW
            ),
          ],
        ],
      ]),
      maxSurge: 0,
      maxUnavailable: 2,
      desiredNumberScheduled: 3,
      emptyNodes: 1,
    },
  ])('TestGetUnavailableNumbers: $name', (c) => {
    // Prepare
    const ds = dsWith(c.strategy);
    const nodes = makeNodes(0, c.nodes);
    // Act
    const budget = updatedDesiredNodeCounts(ds, nodes, c.nodeToPods);
    // Assess
    expect({
      maxSurge: budget.maxSurge,
      maxUnavailable: budget.maxUnavailable,
      desiredNumberScheduled: budget.desiredNumberScheduled,
    }).toEqual({
      maxSurge: c.maxSurge,
      maxUnavailable: c.maxUnavailable,
      desiredNumberScheduled: c.desiredNumberScheduled,
    });
    const empty = [...budget.nodeToDaemonPods.values()].filter(
      (pods) => pods.length === 0
    );
    expect(empty).toHaveLength(c.emptyNodes);
    expect(budget.nodeToDaemonPods.size).toBe(c.nodes);
  });

  it('TestGetUnavailableNumbers: keeps entries of nodes that should not run but have pods', () => {
    // Prepare
    const ds = dsWith(newUpdateUnavailable(1));
    const pods = new Map<string, Pod[]>([['gone', [podOn('gone', false)]]]);
    // Act
    const budget = updatedDesiredNodeCounts(ds, makeNodes(0, 1), pods);
    // Assess
    expect([...budget.nodeToDaemonPods.keys()]).toEqual(['node-0', 'gone']);
    expect(budget.desiredNumberScheduled).toBe(1);
  });

  it('TestGetUnavailableNumbers: wraps an invalid budget in an InvalidObjectError', () => {
    // Prepare
    const ds = dsWith(newUpdateUnavailable('50'));
    // Act
    const act = () => updatedDesiredNodeCounts(ds, makeNodes(0, 1), new Map());
    // Assess
    expect(act).toThrow(InvalidObjectError);
    expect(act).toThrow(/invalid value for MaxUnavailable or MaxSurge/);
  });
});

describe('getScaledValueFromIntOrPercent', () => {
  it.each([
    { value: 3, total: 10, want: 3 },
    { value: 0, total: 10, want: 0 },
    { value: '50%', total: 2, want: 1 },
    { value: '50%', total: 3, want: 2 },
    { value: '1%', total: 1, want: 1 },
    { value: '0%', total: 100, want: 0 },
    { value: '100%', total: 7, want: 7 },
    { value: '150%', total: 2, want: 3 },
    { value: '-50%', total: 3, want: -1 },
  ])(
    'scales $value of $total to $want, rounding up',
    ({ value, total, want }) => {
      // Act
      const got = getScaledValueFromIntOrPercent(value, total);
      // Assess
      expect(got).toBe(want);
    }
  );

  it.each([
    { name: 'a number without %', value: '50' },
    { name: 'a non-numeric percent', value: 'abc%' },
    { name: 'an empty string', value: '' },
    { name: 'a fraction', value: '1.5%' },
  ])('rejects $name', ({ value }) => {
    // Act
    const act = () => getScaledValueFromIntOrPercent(value, 10);
    // Assess
    expect(act).toThrow(InvalidObjectError);
    expect(act).toThrow(/invalid value for IntOrString/);
  });

  it('rejects a nil value', () => {
    // Prepare
    const nil = JSON.parse('null') as number | undefined;
    // Act / Assess
    expect(() => getScaledValueFromIntOrPercent(undefined, 1)).toThrow(
      'nil value for IntOrString'
    );
    expect(() => getScaledValueFromIntOrPercent(nil, 1)).toThrow(
      'nil value for IntOrString'
    );
  });
});

describe('surgeCount / unavailableCount (util.SurgeCount, util.UnavailableCount)', () => {
  it.each([
    { name: 'OnDelete', strategy: { type: 'OnDelete' }, surge: 0, unav: 0 },
    {
      name: 'RollingUpdate without rollingUpdate',
      strategy: { type: 'RollingUpdate' },
      surge: 0,
      unav: 0,
    },
    {
      name: 'maxUnavailable only',
      strategy: newUpdateUnavailable('25%'),
      surge: 0,
      unav: 3,
    },
    {
      name: 'maxSurge in percent',
      strategy: newUpdateSurge('10%'),
      surge: 1,
      unav: 0,
    },
    { name: 'maxSurge as int', strategy: newUpdateSurge(4), surge: 4, unav: 0 },
  ])(
    'scales $name against the nodes to schedule',
    ({ strategy, surge, unav }) => {
      // Prepare
      const ds = dsWith(strategy);
      // Act / Assess
      expect(surgeCount(ds, 10)).toBe(surge);
      expect(unavailableCount(ds, 10)).toBe(unav);
    }
  );

  it('fails on a nil maxUnavailable, as upstream before API defaulting', () => {
    // Prepare
    const ds = dsWith({ type: 'RollingUpdate', rollingUpdate: {} });
    // Act / Assess
    expect(() => unavailableCount(ds, 3)).toThrow('nil value for IntOrString');
    expect(surgeCount(ds, 3)).toBe(0);
  });

  it('reads a nil maxUnavailable of the own kind as Kruise defaults it (1 when maxSurge is 0 too)', () => {
    // Prepare
    const ds = dsWith({ type: 'RollingUpdate', rollingUpdate: {} });
    ds.kind = 'AdvancedDaemonSet';
    // Act / Assess
    expect(unavailableCount(ds, 3)).toBe(0);
    expect(
      updatedDesiredNodeCounts(ds, makeNodes(0, 3), new Map()).maxUnavailable
    ).toBe(1);
  });

  it('fails on "50" without %', () => {
    // Prepare
    const ds = dsWith({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 0, maxSurge: '50' },
    });
    // Act / Assess
    expect(() => surgeCount(ds, 3)).toThrow(/not a percentage/);
  });
});

describe('allowsSurge (util.AllowsSurge)', () => {
  it.each([
    { name: 'OnDelete', strategy: { type: 'OnDelete' }, want: false },
    {
      name: 'maxUnavailable only',
      strategy: newUpdateUnavailable(1),
      want: false,
    },
    { name: 'maxSurge 0', strategy: newUpdateSurge(0), want: false },
    { name: 'maxSurge 0%', strategy: newUpdateSurge('0%'), want: false },
    { name: 'maxSurge 1', strategy: newUpdateSurge(1), want: true },
    {
      name: 'maxSurge 1% (rounds up)',
      strategy: newUpdateSurge('1%'),
      want: true,
    },
    { name: 'an invalid maxSurge', strategy: newUpdateSurge('x'), want: false },
  ])('returns $want for $name', ({ strategy, want }) => {
    // Act / Assess
    expect(allowsSurge(dsWith(strategy))).toBe(want);
  });
});

describe('findUpdatedPodsOnNode', () => {
  it('returns the new and the old pod, ignoring pods being deleted', () => {
    // Prepare
    const ds = dsWith(newUpdateUnavailable(1));
    const fresh = podOn('n', true);
    const stale = podOn('n', false);
    const dying = markPodDeleting(podOn('n', false), NOW);
    // Act
    const got = findUpdatedPodsOnNode(ds, [dying, fresh, stale], HASH);
    // Assess
    expect(got).toEqual({ newPod: fresh, oldPod: stale, ok: true });
  });

  it('counts a pod with the template generation label as new', () => {
    // Prepare
    const ds = dsWith(newUpdateUnavailable(1));
    const pod = newPod('p-', 'n', { [TEMPLATE_GENERATION_LABEL]: '1' });
    // Act
    const got = findUpdatedPodsOnNode(ds, [pod], HASH);
    // Assess
    expect(got.newPod).toBe(pod);
  });

  it.each([
    { name: 'two new pods', updated: true },
    { name: 'two old pods', updated: false },
  ])('is not ok with $name', ({ updated }) => {
    // Prepare
    const ds = dsWith(newUpdateUnavailable(1));
    const pods = [podOn('n', updated), podOn('n', updated)];
    // Act / Assess
    expect(findUpdatedPodsOnNode(ds, pods, HASH)).toEqual({ ok: false });
  });

  it('returns nothing for an empty node', () => {
    // Act / Assess
    expect(
      findUpdatedPodsOnNode(dsWith(newUpdateUnavailable(1)), [], HASH)
    ).toEqual({ newPod: undefined, oldPod: undefined, ok: true });
  });
});

describe('planRollingUpdate without surge', () => {
  const plan = (
    ds: DaemonSet,
    nodes: readonly Node[],
    byNode: Map<string, Pod[]>,
    nowMs = NOW
  ) => planRollingUpdate(ds, nodes, byNode, HASH, nowMs);

  it('deletes available old pods up to maxUnavailable', () => {
    // Prepare
    const ds = dsWith(newUpdateUnavailable(2));
    const old = [0, 1, 2].map((i) => podOn(`node-${i}`, false));
    const byNode = new Map(old.map((p, i) => [`node-${i}`, [p]]));
    // Act
    const got = plan(ds, makeNodes(0, 3), byNode);
    // Assess
    expect(got.podsToDelete).toHaveLength(2);
    expect(got.nodesNeedingDaemonPods).toEqual([]);
  });

  it('deletes every unavailable old pod regardless of the budget', () => {
    // Prepare
    const ds = dsWith(newUpdateUnavailable(1));
    const old = [0, 1, 2].map((i) => podOn(`node-${i}`, false, false));
    const byNode = new Map(old.map((p, i) => [`node-${i}`, [p]]));
    // Act
    const got = plan(ds, makeNodes(0, 3), byNode);
    // Assess
    expect(got.podsToDelete).toEqual(names(old));
  });

  it('spends the budget on empty, doubled, duplicated and unavailable new nodes', () => {
    // Prepare
    const ds = dsWith(newUpdateUnavailable(4));
    const byNode = new Map<string, Pod[]>([
      ['node-1', [podOn('node-1', true), podOn('node-1', false)]],
      ['node-2', [podOn('node-2', false), podOn('node-2', false)]],
      ['node-3', [podOn('node-3', true, false)]],
      ['node-4', [podOn('node-4', false)]],
      ['node-5', [podOn('node-5', true)]],
    ]);
    // Act: node-0 is empty, so 4 nodes are unavailable.
    const got = plan(ds, makeNodes(0, 6), byNode);
    // Assess
    expect(got.podsToDelete).toEqual([]);
    expect(got.budget).toEqual({
      maxUnavailable: 4,
      maxSurge: 0,
      inUse: 4,
    });
  });

  it('skips available old pods once unavailable nodes fill the budget', () => {
    // Prepare
    const ds = dsWith(newUpdateUnavailable(1));
    const stale = podOn('node-1', false);
    const byNode = new Map<string, Pod[]>([
      ['node-0', [podOn('node-0', true, false)]],
      ['node-1', [stale]],
    ]);
    // Act
    const got = plan(ds, makeNodes(0, 2), byNode);
    // Assess
    expect(got.podsToDelete).toEqual([]);
  });

  it('counts an unavailable pod on a node missing from the node list against the budget', () => {
    // Prepare
    const ds = dsWith(newUpdateUnavailable(1));
    const stale = podOn('node-0', false);
    const byNode = new Map<string, Pod[]>([
      ['gone', [podOn('gone', true, false)]],
      ['node-0', [stale]],
    ]);
    // Act
    const got = plan(ds, makeNodes(0, 1), byNode);
    // Assess: node-0 is a candidate, but the unknown node spends the budget.
    expect(got.podsToDelete).toEqual([]);
  });

  it('treats a new pod as unavailable until minReadySeconds passed (boundary included)', () => {
    // Prepare
    const ds = dsWith(newUpdateUnavailable(1), 10);
    const fresh = markPodReady(podOn('node-0', true, false), NOW);
    const stale = podOn('node-1', false);
    const byNode = new Map<string, Pod[]>([
      ['node-0', [fresh]],
      ['node-1', [stale]],
    ]);
    // Act
    const early = plan(ds, makeNodes(0, 2), byNode, NOW + 9_999);
    const onTime = plan(ds, makeNodes(0, 2), byNode, NOW + 10_000);
    // Assess
    expect(early.podsToDelete).toEqual([]);
    expect(onTime.podsToDelete).toEqual(names([stale]));
  });
});

describe('planRollingUpdate with surge', () => {
  const plan = (
    ds: DaemonSet,
    nodes: readonly Node[],
    byNode: Map<string, Pod[]>
  ) => planRollingUpdate(ds, nodes, byNode, HASH, NOW);

  /** A DaemonSet that runs only on nodes labelled run=yes. */
  const selectiveDs = (maxSurge: number | string): DaemonSet => {
    const ds = dsWith(newUpdateSurge(maxSurge));
    if (ds.spec?.template.spec) {
      ds.spec.template.spec.nodeSelector = { run: 'yes' };
    }
    return ds;
  };

  it('creates up to maxSurge new pods next to available old ones', () => {
    // Prepare
    const ds = dsWith(newUpdateSurge(2));
    const byNode = new Map(
      [0, 1, 2].map((i) => [`node-${i}`, [podOn(`node-${i}`, false)]])
    );
    // Act
    const got = plan(ds, makeNodes(0, 3), byNode);
    // Assess
    expect(got).toEqual({
      podsToDelete: [],
      nodesNeedingDaemonPods: ['node-0', 'node-1'],
      desiredNumberScheduled: 3,
      budget: { maxUnavailable: 0, maxSurge: 2, inUse: 0 },
    });
  });

  it('creates on every node whose old pod is unavailable, beyond maxSurge', () => {
    // Prepare
    const ds = dsWith(newUpdateSurge(1));
    const byNode = new Map(
      [0, 1, 2].map((i) => [`node-${i}`, [podOn(`node-${i}`, false, false)]])
    );
    // Act
    const got = plan(ds, makeNodes(0, 3), byNode);
    // Assess
    expect(got.nodesNeedingDaemonPods).toEqual(['node-0', 'node-1', 'node-2']);
    expect(got.podsToDelete).toEqual([]);
  });

  it('deletes the old pod once the new one is available, and waits otherwise', () => {
    // Prepare
    const ds = dsWith(newUpdateSurge(1));
    const staleDone = podOn('node-0', false);
    const byNode = new Map<string, Pod[]>([
      ['node-0', [staleDone, podOn('node-0', true)]],
      ['node-1', [podOn('node-1', false), podOn('node-1', true, false)]],
      ['node-2', [podOn('node-2', false)]],
    ]);
    // Act
    const got = plan(ds, makeNodes(0, 3), byNode);
    // Assess: node-1's surge uses the whole budget; node-2 waits.
    expect(got).toEqual({
      podsToDelete: names([staleDone]),
      nodesNeedingDaemonPods: [],
      desiredNumberScheduled: 3,
      budget: { maxUnavailable: 0, maxSurge: 1, inUse: 1 },
    });
  });

  it('counts a node with duplicate pods as surging', () => {
    // Prepare
    const ds = dsWith(newUpdateSurge(1));
    const byNode = new Map<string, Pod[]>([
      ['node-0', [podOn('node-0', true), podOn('node-0', true)]],
      ['node-1', [podOn('node-1', false)]],
    ]);
    // Act
    const got = plan(ds, makeNodes(0, 2), byNode);
    // Assess
    expect(got.nodesNeedingDaemonPods).toEqual([]);
  });

  it('ignores nodes with only a new pod or no pod', () => {
    // Prepare
    const ds = dsWith(newUpdateSurge(1));
    const byNode = new Map<string, Pod[]>([
      ['node-0', [podOn('node-0', true)]],
    ]);
    // Act
    const got = plan(ds, makeNodes(0, 2), byNode);
    // Assess
    expect(got).toEqual({
      podsToDelete: [],
      nodesNeedingDaemonPods: [],
      desiredNumberScheduled: 2,
      budget: { maxUnavailable: 0, maxSurge: 1, inUse: 0 },
    });
  });

  it('deletes an unavailable old pod on a node that should no longer run it', () => {
    // Prepare
    const ds = selectiveDs(1);
    const stale = podOn('node-1', false, false);
    const nodes = [...makeNodes(0, 1, { run: 'yes' }), ...makeNodes(1, 1)];
    const byNode = new Map<string, Pod[]>([
      ['node-0', [podOn('node-0', true)]],
      ['node-1', [stale]],
    ]);
    // Act
    const got = plan(ds, nodes, byNode);
    // Assess
    expect(got.podsToDelete).toEqual(names([stale]));
  });

  it('deletes available pods on nodes that should no longer run only while availability exceeds desired', () => {
    // Prepare: 2 desired nodes, 3 available pods, 2 misplaced available pods.
    const ds = selectiveDs(1);
    const nodes = [...makeNodes(0, 2, { run: 'yes' }), ...makeNodes(2, 2)];
    const misplaced = [podOn('node-2', false), podOn('node-3', false)];
    const byNode = new Map<string, Pod[]>([
      ['node-0', [podOn('node-0', true)]],
      ['node-1', [podOn('node-1', true, false)]],
      ['node-2', [misplaced[0] as Pod]],
      ['node-3', [misplaced[1] as Pod]],
    ]);
    // Act
    const got = plan(ds, nodes, byNode);
    // Assess: 3 available − 2 desired ⇒ one of them may go.
    expect(got.podsToDelete).toEqual(names(misplaced.slice(0, 1)));
  });

  it('keeps pods on nodes that should no longer run while availability is at desired', () => {
    // Prepare
    const ds = selectiveDs(1);
    const nodes = [...makeNodes(0, 1, { run: 'yes' }), ...makeNodes(1, 1)];
    const byNode = new Map<string, Pod[]>([
      ['node-1', [podOn('node-1', false)]],
    ]);
    // Act
    const got = plan(ds, nodes, byNode);
    // Assess
    expect(got.podsToDelete).toEqual([]);
  });

  it('fails like upstream when a node with pods is missing from the node list', () => {
    // Prepare
    const ds = dsWith(newUpdateSurge(1));
    const byNode = new Map<string, Pod[]>([['gone', [podOn('gone', false)]]]);
    // Act
    const act = () => plan(ds, makeNodes(0, 1), byNode);
    // Assess
    expect(act).toThrow(SyncError);
    expect(act).toThrow(`couldn't get node for nodeName "gone"`);
  });

  it("converges-after-faults: asks, by its own clock, for a requeue when the first new pod waiting for minReadySeconds becomes available (campaign seed 60438: a clock 2 s behind the node's missed upstream's Ready-event requeue and the rollout stood still)", () => {
    // Prepare: two nodes mid-surge, their new pods Ready 3 s and 6 s ago,
    // minReadySeconds 10; a third whose new pod is not Ready yet.
    const ds = dsWith(newUpdateSurge(3), 10);
    const byNode = new Map<string, Pod[]>([
      [
        'node-0',
        [
          podOn('node-0', false),
          markPodReady(podOn('node-0', true, false), NOW - 3_000),
        ],
      ],
      [
        'node-1',
        [
          podOn('node-1', false),
          markPodReady(podOn('node-1', true, false), NOW - 6_000),
        ],
      ],
      ['node-2', [podOn('node-2', false), podOn('node-2', true, false)]],
    ]);
    // Act
    const got = plan(ds, makeNodes(0, 3), byNode);
    // Assess: nothing deleted yet; back when node-1's pod is available.
    expect(got.podsToDelete).toEqual([]);
    expect(got.requeueAfterMs).toBe(4_000);
  });

  it('asks for no requeue when no new pod waits on minReadySeconds (one held by its in-place readiness gate waits for an event)', () => {
    // Prepare: the new pod is Ready for long but its InPlaceUpdateReady
    // gate is False: no time will make it available.
    const ds = dsWith(newUpdateSurge(1), 10);
    const gated = markPodReady(podOn('node-0', true, false), NOW - 60_000);
    gated.spec = {
      ...gated.spec,
      readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
    } as Pod['spec'];
    gated.status?.conditions?.push({
      type: 'InPlaceUpdateReady',
      status: 'False',
    });
    const byNode = new Map<string, Pod[]>([
      ['node-0', [podOn('node-0', false), gated]],
    ]);
    // Act
    const got = plan(ds, makeNodes(0, 1), byNode);
    // Assess
    expect(got.podsToDelete).toEqual([]);
    expect(got.requeueAfterMs).toBeUndefined();
  });
});
