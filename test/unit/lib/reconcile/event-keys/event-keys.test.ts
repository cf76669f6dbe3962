/**
 * Ports the event-handling tests of upstream daemon_controller_test.go. Each
 * `Test*` case tests this design's event-to-key mapping (what the
 * watch-bridge must enqueue and observe) instead of informer wiring: where
 * upstream feeds a handler and reads `manager.queue`, we call the pure
 * handler and read its `EventKeys`.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  addDaemonset,
  addHistory,
  addNode,
  addPod,
  type ClusterView,
  deleteDaemonset,
  deleteHistory,
  deletePod,
  type EventKeys,
  getDaemonSetsForObject,
  resolveControllerRef,
  shouldIgnoreNodeUpdate,
  syncNodeUpdate,
  updateDaemonset,
  updateHistory,
  updateNode,
  updatePod,
} from '#lib/reconcile/event-keys/index.js';
import { MIN_READY_REQUEUE_SKEW_MS } from '#lib/reconcile/event-keys/pods.js';
import type {
  ControllerRevision,
  DaemonSet,
  KubeObject,
  LabelSelector,
  Node,
  OwnerReference,
  Pod,
  Taint,
} from '#lib/reconcile/k8s/types.js';
import {
  clone,
  markPodDeleting,
  markPodReady,
  newDaemonSet,
  newNode,
  newPod,
  simpleDaemonSetLabel,
  simpleDaemonSetLabel2,
  simpleNodeLabel,
  updateStrategies,
} from '../../../../helpers/builders.js';

const CLUSTER = 'c1';
const NOTHING: EventKeys = {
  keys: [],
  expectations: [],
  delayedKeys: [],
  dropExpectations: [],
};
const noScheduleTaints: Taint[] = [
  { key: 'dedicated', value: 'user1', effect: 'NoSchedule' },
];

const view = (...daemonSets: DaemonSet[]): ClusterView => ({
  cluster: CLUSTER,
  daemonSets,
  ownerKind: 'DaemonSet',
});
const keyOf = (ds: DaemonSet): string =>
  `${CLUSTER}/${ds.metadata?.namespace}/${ds.metadata?.name}`;
const enqueues = (...dss: DaemonSet[]): EventKeys => ({
  ...NOTHING,
  keys: dss.map(keyOf),
});

/** Upstream `newDaemonSet` under one of `updateStrategies()`. */
type Strategy = ReturnType<typeof updateStrategies>[number]['strategy'];

/** Returns a copy of `ds` under one of upstream's `updateStrategies()`. */
const withStrategy = (ds: DaemonSet, strategy: Strategy): DaemonSet => {
  const copy = clone(ds);
  if (copy.spec) copy.spec.updateStrategy = strategy;
  return copy;
};

/** Upstream `newDaemonSet` with `ds.Spec.UpdateStrategy = *strategy`. */
const dsWith = (name: string, strategy: Strategy): DaemonSet =>
  withStrategy(newDaemonSet(name), strategy);

/** Upstream `bumpResourceVersion`. */
const bumped = <T extends KubeObject>(obj: T): T => {
  const next = clone(obj);
  const rv = Number(obj.metadata?.resourceVersion ?? '0') + 1;
  next.metadata = { ...next.metadata, resourceVersion: String(rv) };
  return next;
};

const controllerRefTo = (ds: DaemonSet): OwnerReference => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  name: ds.metadata?.name ?? '',
  uid: ds.metadata?.uid ?? '',
  controller: true,
  blockOwnerDeletion: true,
});

const withOwners = <T extends KubeObject>(
  obj: T,
  ownerReferences: OwnerReference[] | undefined
): T => ({ ...obj, metadata: { ...obj.metadata, ownerReferences } });

const withLabels = <T extends KubeObject>(
  obj: T,
  labels: Record<string, string> | undefined
): T => ({ ...obj, metadata: { ...obj.metadata, labels } });

const withNodeSelector = (
  ds: DaemonSet,
  nodeSelector: Record<string, string>
): DaemonSet => {
  const copy = clone(ds);
  const template = copy.spec?.template;
  if (template?.spec) template.spec.nodeSelector = { ...nodeSelector };
  return copy;
};

const withTaints = (node: Node, taints: Taint[]): Node => ({
  ...node,
  spec: { ...node.spec, taints },
});

/** Upstream `newControllerRevision`. */
const newControllerRevision = (
  name: string,
  labels: Record<string, string> | undefined,
  owner?: DaemonSet
): ControllerRevision => ({
  apiVersion: 'apps/v1',
  kind: 'ControllerRevision',
  metadata: {
    name,
    namespace: 'default',
    uid: randomUUID(),
    resourceVersion: '1',
    ...(labels ? { labels: { ...labels } } : {}),
    ...(owner ? { ownerReferences: [controllerRefTo(owner)] } : {}),
  },
  revision: 1,
});

describe('DaemonSet handlers', () => {
  it.each(updateStrategies())(
    'TestDeleteFinalStateUnknown: a tombstone enqueues its DaemonSet ($name)',
    ({ strategy }) => {
      // Tests this design's event-to-key mapping instead of informer wiring.
      // Upstream hands deleteDaemonset a cache.DeletedFinalStateUnknown; our
      // bridge unwraps it: when a relist no longer lists an object it knew,
      // it calls the delete handler with that object's last known state.
      // Prepare
      const ds = dsWith('foo', strategy);
      // Act
      const got = deleteDaemonset(view(), ds);
      // Assess
      expect(got.keys).toEqual(['c1/default/foo']);
      expect(got.dropExpectations).toEqual(['c1/default/foo']);
    }
  );

  it('TestExpectationsOnRecreate (handler half): a recreated DaemonSet starts clean', () => {
    // Tests this design's event-to-key mapping instead of informer wiring;
    // the sync half (1 create per incarnation) belongs to syncDaemonSet.
    // Prepare
    const oldDs = newDaemonSet('test');
    const newDs: DaemonSet = {
      ...clone(oldDs),
      metadata: { ...oldDs.metadata, uid: randomUUID() },
    };
    const oldPod = newPod('test-', 'master-0', simpleDaemonSetLabel, oldDs);
    const key = keyOf(oldDs);
    // Act
    const created = addDaemonset(view(), oldDs);
    const podSeen = addPod(view(oldDs), oldPod);
    const deleted = deleteDaemonset(view(), oldDs);
    const recreated = addDaemonset(view(newDs), newDs);
    const oldPodGone = deletePod(view(newDs), oldPod);
    const oldPodChanged = updatePod(
      view(newDs),
      oldPod,
      markPodReady(bumped(oldPod), 0)
    );
    // Assess
    expect(created).toEqual(enqueues(oldDs));
    expect(podSeen.expectations).toEqual([{ key, observed: 'creation' }]);
    expect(deleted).toEqual({ ...enqueues(oldDs), dropExpectations: [key] });
    expect(recreated).toEqual(enqueues(newDs));
    expect(oldPodGone).toEqual(NOTHING);
    expect(oldPodChanged).toEqual(NOTHING);
  });

  it('treats an update with a new UID as delete + add', () => {
    // Prepare
    const oldDs = newDaemonSet('foo');
    const newDs: DaemonSet = {
      ...clone(oldDs),
      metadata: { ...oldDs.metadata, uid: randomUUID() },
    };
    // Act
    const got = updateDaemonset(view(newDs), oldDs, newDs);
    // Assess
    expect(got).toEqual({
      ...enqueues(newDs),
      dropExpectations: [keyOf(oldDs)],
    });
  });

  it('enqueues on every update with the same UID, even a resync', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    // Act
    const got = updateDaemonset(view(ds), ds, ds);
    // Assess
    expect(got).toEqual(enqueues(ds));
  });
});

describe('node handlers', () => {
  it('TestAddNode: a node add wakes the DaemonSets that should run there', () => {
    // Tests this design's event-to-key mapping instead of informer wiring
    // (upstream: addNode puts the name on nodeUpdateQueue, syncNodeUpdate
    // enqueues; here both happen in addNode).
    // Prepare
    const ds = withNodeSelector(newDaemonSet('ds'), simpleNodeLabel);
    const node1 = newNode('node1');
    const node2 = newNode('node2', simpleNodeLabel);
    // Act
    const got1 = addNode(view(ds), node1, []);
    const got2 = addNode(view(ds), node2, []);
    // Assess
    expect(got1).toEqual(NOTHING);
    expect(got2).toEqual(enqueues(ds));
  });

  const allocatableDs = (): DaemonSet => {
    const ds = newDaemonSet('ds');
    const container = ds.spec?.template.spec?.containers[0];
    if (container) {
      container.resources = { requests: { memory: '200M', cpu: '200m' } };
    }
    return ds;
  };
  const updateNodeCases = [
    {
      test: 'Nothing changed, should not enqueue',
      oldNode: newNode('node1'),
      newNode: newNode('node1'),
      ds: withNodeSelector(newDaemonSet('ds'), simpleNodeLabel),
      podOnNode: false,
      shouldEnqueue: false,
    },
    {
      test: 'Node labels changed',
      oldNode: newNode('node1'),
      newNode: newNode('node1', simpleNodeLabel),
      ds: withNodeSelector(newDaemonSet('ds'), simpleNodeLabel),
      podOnNode: false,
      shouldEnqueue: true,
    },
    {
      test: 'Node taints changed',
      oldNode: withTaints(newNode('node1'), noScheduleTaints),
      newNode: newNode('node1'),
      ds: newDaemonSet('ds'),
      podOnNode: false,
      shouldEnqueue: true,
    },
    {
      test: 'Node Allocatable changed',
      oldNode: newNode('node1'),
      newNode: {
        ...newNode('node1'),
        status: { allocatable: { memory: '200M', cpu: '200m' } },
      },
      ds: allocatableDs(),
      // Upstream's first sync created the pod regardless of resources.
      podOnNode: true,
      shouldEnqueue: false,
    },
  ];
  describe.each(updateStrategies())(
    'TestUpdateNode ($name)',
    ({ strategy }) => {
      it.each(updateNodeCases)(
        'TestUpdateNode: $test',
        ({ oldNode, newNode: curNode, ds, podOnNode, shouldEnqueue }) => {
          // Tests this design's event-to-key mapping instead of informer wiring.
          // Prepare
          const daemonSet = withStrategy(ds, strategy);
          const pods = podOnNode
            ? [newPod('node1-', 'node1', simpleDaemonSetLabel, daemonSet)]
            : [];
          // Act
          const got = updateNode(view(daemonSet), oldNode, curNode, pods);
          // Assess
          expect(got.keys.includes('c1/default/ds')).toBe(shouldEnqueue);
        }
      );
    }
  );

  it.each([
    {
      name: 'Nothing changed',
      oldNode: newNode('node1'),
      newNode: newNode('node1'),
      expected: true,
    },
    {
      name: 'Node labels changed',
      oldNode: newNode('node1'),
      newNode: newNode('node1', simpleNodeLabel),
      expected: false,
    },
    {
      name: 'Node taints changed',
      oldNode: withTaints(newNode('node1'), noScheduleTaints),
      newNode: newNode('node1'),
      expected: false,
    },
  ])('TestShouldIgnoreNodeUpdate: $name ⇒ $expected', (c) => {
    // Tests this design's event-to-key mapping instead of informer wiring.
    // Act / Assess
    expect(shouldIgnoreNodeUpdate(c.oldNode, c.newNode)).toBe(c.expected);
  });

  it.each([
    {
      name: 'absent and empty labels/taints are equal',
      old: { metadata: { name: 'n' } } as Node,
      cur: { metadata: { name: 'n', labels: {} }, spec: { taints: [] } },
      expected: true,
    },
    {
      name: 'absent and empty taint value are equal',
      old: withTaints(newNode('n'), [{ key: 'k', effect: 'NoSchedule' }]),
      cur: withTaints(newNode('n'), [
        { key: 'k', value: '', effect: 'NoSchedule' },
      ]),
      expected: true,
    },
    {
      name: 'the same instant in two spellings is equal',
      old: withTaints(newNode('n'), [
        { key: 'k', effect: 'NoExecute', timeAdded: '2026-01-01T00:00:00Z' },
      ]),
      cur: withTaints(newNode('n'), [
        {
          key: 'k',
          effect: 'NoExecute',
          timeAdded: '2026-01-01T01:00:00+01:00',
        },
      ]),
      expected: true,
    },
    {
      name: 'a taint gaining timeAdded differs',
      old: withTaints(newNode('n'), [{ key: 'k', effect: 'NoExecute' }]),
      cur: withTaints(newNode('n'), [
        { key: 'k', effect: 'NoExecute', timeAdded: '2026-01-01T00:00:00Z' },
      ]),
      expected: false,
    },
    {
      name: 'reordered taints differ (ordered, like DeepEqual)',
      old: withTaints(newNode('n'), [
        { key: 'a', effect: 'NoSchedule' },
        { key: 'b', effect: 'NoSchedule' },
      ]),
      cur: withTaints(newNode('n'), [
        { key: 'b', effect: 'NoSchedule' },
        { key: 'a', effect: 'NoSchedule' },
      ]),
      expected: false,
    },
    {
      name: 'a changed label value differs',
      old: newNode('n', { color: 'blue' }),
      cur: newNode('n', { color: 'red' }),
      expected: false,
    },
    {
      name: 'conditions changes are ignored',
      old: newNode('n'),
      cur: {
        ...newNode('n'),
        status: { conditions: [{ type: 'Ready', status: 'False' }] },
      },
      expected: true,
    },
  ])('shouldIgnoreNodeUpdate: $name', ({ old, cur, expected }) => {
    // Act / Assess
    expect(shouldIgnoreNodeUpdate(old, cur)).toBe(expected);
  });

  describe('syncNodeUpdate enqueue rule', () => {
    const ds = withNodeSelector(newDaemonSet('ds'), simpleNodeLabel);
    const misscheduled = clone(ds);
    if (misscheduled.status) misscheduled.status.numberMisscheduled = 1;
    const fits = newNode('node1', simpleNodeLabel);
    const doesNotFit = newNode('node1');
    const ownPod = newPod('node1-', 'node1', simpleDaemonSetLabel, ds);
    const podElsewhere = newPod('node2-', 'node2', simpleDaemonSetLabel, ds);
    const foreignKindPod = withOwners(ownPod, [
      { ...controllerRefTo(ds), kind: 'ReplicaSet' },
    ]);
    const oldIncarnationPod = withOwners(ownPod, [
      { ...controllerRefTo(ds), uid: randomUUID() },
    ]);
    const orphanPod = withOwners(ownPod, undefined);
    it.each([
      { name: 'should run, no pod', d: ds, node: fits, pods: [], want: true },
      {
        name: 'should run, pod there',
        d: ds,
        node: fits,
        pods: [ownPod],
        want: false,
      },
      {
        name: 'should run, pod there, misscheduled > 0',
        d: misscheduled,
        node: fits,
        pods: [ownPod],
        want: true,
      },
      {
        name: 'must not run, pod there',
        d: ds,
        node: doesNotFit,
        pods: [ownPod],
        want: true,
      },
      {
        name: 'must not run, no pod',
        d: misscheduled,
        node: doesNotFit,
        pods: [],
        want: false,
      },
      {
        name: 'pod bound elsewhere ignored',
        d: ds,
        node: fits,
        pods: [podElsewhere],
        want: true,
      },
      {
        name: 'non-DaemonSet owner ignored',
        d: ds,
        node: fits,
        pods: [foreignKindPod],
        want: true,
      },
      {
        name: 'old incarnation (other UID) ignored',
        d: ds,
        node: fits,
        pods: [oldIncarnationPod],
        want: true,
      },
      {
        name: 'orphan pod ignored',
        d: ds,
        node: doesNotFit,
        pods: [orphanPod],
        want: false,
      },
    ])('$name ⇒ enqueue $want', ({ d, node, pods, want }) => {
      // Act
      const got = syncNodeUpdate(view(d), node, pods);
      // Assess
      expect(got).toEqual(want ? enqueues(d) : NOTHING);
    });

    it('wakes a DaemonSet on a relisted node only if its rule says so', () => {
      // Prepare
      const other = newDaemonSet('other');
      const otherPod = newPod('node1-', 'node1', simpleDaemonSetLabel, other);
      // Act
      const got = addNode(view(ds, other), fits, [ownPod, otherPod]);
      // Assess
      expect(got).toEqual(NOTHING);
    });

    it('copes with unnamed nodes and DaemonSets', () => {
      // Prepare
      const bare: DaemonSet = { spec: ds.spec };
      // Act
      const got = syncNodeUpdate(
        view(bare),
        { metadata: { labels: simpleNodeLabel } },
        [{ spec: { containers: [] } }]
      );
      // Assess
      expect(got.keys).toEqual(['c1//']);
    });
  });
});

describe('pod handlers', () => {
  describe.each(updateStrategies())('under $name', ({ strategy }) => {
    // Each upstream test below tests this design's event-to-key mapping
    // instead of informer wiring: a key in `keys` is a queue.Add.
    const ds1 = dsWith('foo1', strategy);
    const ds2 = dsWith('foo2', strategy);
    const ds3 = withSelector(dsWith('foo3', strategy), simpleDaemonSetLabel2);

    it('TestAddPod: an owned pod enqueues only its owner and observes a creation', () => {
      // Tests this design's event-to-key mapping instead of informer wiring.
      // Prepare
      const pod1 = newPod('pod1-', 'node-0', simpleDaemonSetLabel, ds1);
      const pod2 = newPod('pod2-', 'node-0', simpleDaemonSetLabel, ds2);
      // Act
      const got1 = addPod(view(ds1, ds2), pod1);
      const got2 = addPod(view(ds1, ds2), pod2);
      // Assess
      expect(got1).toEqual({
        ...enqueues(ds1),
        expectations: [{ key: keyOf(ds1), observed: 'creation' }],
      });
      expect(got2).toEqual({
        ...enqueues(ds2),
        expectations: [{ key: keyOf(ds2), observed: 'creation' }],
      });
    });

    it('TestAddPodOrphan: an orphan enqueues every matching DaemonSet', () => {
      // Tests this design's event-to-key mapping instead of informer wiring.
      // Prepare
      const pod = newPod('pod1-', 'node-0', simpleDaemonSetLabel);
      // Act
      const got = addPod(view(ds1, ds2, ds3), pod);
      // Assess
      expect(got).toEqual(enqueues(ds1, ds2));
    });

    it('TestUpdatePod: an owned pod update enqueues only its owner', () => {
      // Tests this design's event-to-key mapping instead of informer wiring.
      // Prepare
      const pod1 = newPod('pod1-', 'node-0', simpleDaemonSetLabel, ds1);
      const pod2 = newPod('pod2-', 'node-0', simpleDaemonSetLabel, ds2);
      // Act
      const got1 = updatePod(view(ds1, ds2), pod1, bumped(pod1));
      const got2 = updatePod(view(ds1, ds2), pod2, bumped(pod2));
      // Assess
      expect(got1).toEqual(enqueues(ds1));
      expect(got2).toEqual(enqueues(ds2));
    });

    it('TestUpdatePodOrphanSameLabels: an orphan update without label change enqueues nothing', () => {
      // Tests this design's event-to-key mapping instead of informer wiring.
      // Prepare
      const pod = newPod('pod1-', 'node-0', simpleDaemonSetLabel);
      // Act
      const got = updatePod(view(ds1, ds2), pod, bumped(pod));
      // Assess
      expect(got).toEqual(NOTHING);
    });

    it('TestUpdatePodOrphanWithNewLabels: an orphan label change enqueues matching DaemonSets', () => {
      // Tests this design's event-to-key mapping instead of informer wiring.
      // Prepare
      const pod = newPod('pod1-', 'node-0', simpleDaemonSetLabel);
      const prev = withLabels(pod, { foo2: 'bar2' });
      // Act
      const got = updatePod(view(ds1, ds2), prev, bumped(pod));
      // Assess
      expect(got).toEqual(enqueues(ds1, ds2));
    });

    it('TestUpdatePodChangeControllerRef: both old and new owner are enqueued', () => {
      // Tests this design's event-to-key mapping instead of informer wiring.
      // Prepare
      const pod = newPod('pod1-', 'node-0', simpleDaemonSetLabel, ds1);
      const prev = withOwners(pod, [controllerRefTo(ds2)]);
      // Act
      const got = updatePod(view(ds1, ds2), prev, bumped(pod));
      // Assess
      expect([...got.keys].sort()).toEqual([keyOf(ds1), keyOf(ds2)]);
    });

    it('TestUpdatePodControllerRefRemoved: old owner and matching DaemonSets are enqueued', () => {
      // Tests this design's event-to-key mapping instead of informer wiring.
      // Prepare
      const pod = newPod('pod1-', 'node-0', simpleDaemonSetLabel, ds1);
      const cur = withOwners(bumped(pod), undefined);
      // Act
      const got = updatePod(view(ds1, ds2), pod, cur);
      // Assess
      expect(got).toEqual(enqueues(ds1, ds2));
    });

    it('TestDeletePod: an owned pod delete enqueues only its owner and observes a deletion', () => {
      // Tests this design's event-to-key mapping instead of informer wiring.
      // Prepare
      const pod1 = newPod('pod1-', 'node-0', simpleDaemonSetLabel, ds1);
      const pod2 = newPod('pod2-', 'node-0', simpleDaemonSetLabel, ds2);
      // Act
      const got1 = deletePod(view(ds1, ds2), pod1);
      const got2 = deletePod(view(ds1, ds2), pod2);
      // Assess
      expect(got1).toEqual({
        ...enqueues(ds1),
        expectations: [{ key: keyOf(ds1), observed: 'deletion' }],
      });
      expect(got2).toEqual({
        ...enqueues(ds2),
        expectations: [{ key: keyOf(ds2), observed: 'deletion' }],
      });
    });

    it('TestDeletePodOrphan: an orphan delete enqueues nothing', () => {
      // Tests this design's event-to-key mapping instead of informer wiring.
      // Prepare
      const pod = newPod('pod1-', 'node-0', simpleDaemonSetLabel);
      // Act
      const got = deletePod(view(ds1, ds2, ds3), pod);
      // Assess
      expect(got).toEqual(NOTHING);
    });

    const ownerRefWithoutKind: OwnerReference = {
      apiVersion: '',
      kind: '',
      name: '',
      uid: '',
      controller: true,
    };
    it.each([
      {
        test: 'Deleted non-daemon pods to release resources',
        deleted: withLabels(newPod('pod_0', 'node1', {}), undefined),
      },
      {
        test: 'Deleted non-daemon pods (with controller) to release resources',
        deleted: withOwners(newPod('pod_0', 'node1', {}), [
          ownerRefWithoutKind,
        ]),
      },
      {
        test: 'Deleted no scheduled pods',
        deleted: withLabels(newPod('pod_5', '', {}), undefined),
      },
    ])('TestDeleteNoDaemonPod: $test ⇒ no enqueue', ({ deleted }) => {
      // Tests this design's event-to-key mapping instead of informer wiring.
      // Prepare
      const ds = dsWith('ds', strategy);
      // Act
      const got = deletePod(view(ds), deleted);
      // Assess
      expect(got).toEqual(NOTHING);
    });
  });

  describe('minReadySeconds requeue', () => {
    const ds = newDaemonSet('foo');
    if (ds.spec) ds.spec.minReadySeconds = 10;
    const pod = newPod('p-', 'node-0', simpleDaemonSetLabel, ds);

    it('delays a second sync by minReadySeconds + 1 s when a pod turns Ready', () => {
      // Act
      const got = updatePod(view(ds), pod, markPodReady(bumped(pod), 0));
      // Assess
      expect(got).toEqual({
        ...enqueues(ds),
        delayedKeys: [
          { key: keyOf(ds), afterMs: 10_000 + MIN_READY_REQUEUE_SKEW_MS },
        ],
      });
    });

    it('does not delay when the pod was already Ready', () => {
      // Prepare
      const ready = markPodReady(clone(pod), 0);
      // Act
      const got = updatePod(view(ds), ready, bumped(ready));
      // Assess
      expect(got).toEqual(enqueues(ds));
    });

    it('does not delay when minReadySeconds is 0', () => {
      // Prepare
      const plain = newDaemonSet('bar');
      const p = newPod('p-', 'node-0', simpleDaemonSetLabel, plain);
      // Act
      const got = updatePod(view(plain), p, markPodReady(bumped(p), 0));
      // Assess
      expect(got).toEqual(enqueues(plain));
    });
  });

  describe('edge cases', () => {
    const ds = newDaemonSet('foo');
    const pod = newPod('p-', 'node-0', simpleDaemonSetLabel, ds);

    it('ignores an update with an unchanged resourceVersion (resync)', () => {
      // Act / Assess
      expect(updatePod(view(ds), pod, clone(pod))).toEqual(NOTHING);
    });

    it('treats a pod added while being deleted as a deletion, not a creation', () => {
      // Act
      const got = addPod(view(ds), markPodDeleting(clone(pod), 0));
      // Assess
      expect(got.expectations).toEqual([
        { key: keyOf(ds), observed: 'deletion' },
      ]);
    });

    it('treats a deletion timestamp appearing on update as a deletion', () => {
      // Act
      const got = updatePod(view(ds), pod, markPodDeleting(bumped(pod), 0));
      // Assess
      expect(got).toEqual({
        ...enqueues(ds),
        expectations: [{ key: keyOf(ds), observed: 'deletion' }],
      });
    });

    it.each([
      {
        name: 'wrong kind',
        ref: { ...controllerRefTo(ds), kind: 'ReplicaSet' },
      },
      { name: 'unknown name', ref: { ...controllerRefTo(ds), name: 'gone' } },
      {
        name: 'same name, other UID',
        ref: { ...controllerRefTo(ds), uid: 'x' },
      },
    ])(
      'does nothing for a pod whose owner does not resolve ($name)',
      ({ ref }) => {
        // Prepare
        const stray = withOwners(pod, [ref]);
        // Act / Assess
        expect(addPod(view(ds), stray)).toEqual(NOTHING);
        expect(updatePod(view(ds), stray, bumped(stray))).toEqual(NOTHING);
        expect(deletePod(view(ds), stray)).toEqual(NOTHING);
      }
    );

    it('does not resolve an owner in another namespace', () => {
      // Prepare
      const elsewhere: Pod = {
        ...pod,
        metadata: { ...pod.metadata, namespace: 'other' },
      };
      // Act / Assess
      expect(addPod(view(ds), elsewhere)).toEqual(NOTHING);
    });

    it('enqueues the old owner once when only the ref flags change', () => {
      // Prepare
      const prev = withOwners(pod, [
        { ...controllerRefTo(ds), blockOwnerDeletion: false },
      ]);
      // Act
      const got = updatePod(view(ds), prev, bumped(pod));
      // Assess
      expect(got).toEqual(enqueues(ds));
    });

    it('enqueues only the new owner when the old owner does not resolve', () => {
      // Prepare
      const prev = withOwners(pod, [{ ...controllerRefTo(ds), uid: 'gone' }]);
      // Act
      const got = updatePod(view(ds), prev, bumped(pod));
      // Assess
      expect(got).toEqual(enqueues(ds));
    });

    it('enqueues nothing for an orphan label change nobody selects', () => {
      // Prepare
      const orphan = newPod('p-', 'node-0', { app: 'x' });
      // Act
      const got = updatePod(
        view(ds),
        withLabels(orphan, { app: 'y' }),
        bumped(orphan)
      );
      // Assess
      expect(got).toEqual(NOTHING);
    });
  });
});

describe('getDaemonSetsForObject (GetPodDaemonSets / GetHistoryDaemonSets)', () => {
  const ds = newDaemonSet('foo');
  const orphan = newPod('p-', 'node-0', simpleDaemonSetLabel);

  it.each([
    { name: 'nil selector', selector: undefined },
    { name: 'empty selector', selector: {} },
    {
      name: 'empty parts',
      selector: { matchLabels: {}, matchExpressions: [] },
    },
    {
      name: 'invalid selector',
      selector: {
        matchExpressions: [{ key: 'name', operator: 'Bogus', values: ['x'] }],
      },
    },
  ])('skips a DaemonSet with a $name and keeps the others', ({ selector }) => {
    // Prepare
    const bad = newDaemonSet('bad');
    // The API server rejects these; the bridge must cope if one appears.
    if (bad.spec) bad.spec.selector = selector as LabelSelector;
    // Act
    const got = getDaemonSetsForObject(view(bad, ds), orphan);
    // Assess
    expect(got).toEqual([ds]);
  });

  it('matches nothing for an unlabelled object, even a NotIn selector', () => {
    // Prepare
    const notIn = withSelectorExpr(newDaemonSet('not-in'));
    // Act / Assess
    expect(
      getDaemonSetsForObject(view(notIn), withLabels(orphan, undefined))
    ).toEqual([]);
    expect(
      getDaemonSetsForObject(view(notIn), withLabels(orphan, { a: 'b' }))
    ).toEqual([notIn]);
  });

  it('matches only DaemonSets of the object namespace', () => {
    // Prepare
    const elsewhere = newDaemonSet('foo', 'other');
    // Act / Assess
    expect(getDaemonSetsForObject(view(elsewhere, ds), orphan)).toEqual([ds]);
  });

  it('resolveControllerRef needs kind, namespace, name and UID', () => {
    // Act / Assess
    expect(resolveControllerRef(view(ds), 'default', controllerRefTo(ds))).toBe(
      ds
    );
    expect(
      resolveControllerRef(view(ds), 'other', controllerRefTo(ds))
    ).toBeUndefined();
  });
});

describe('ControllerRevision handlers', () => {
  const ds1 = newDaemonSet('foo1');
  const ds2 = newDaemonSet('foo2');
  const ds3 = withSelector(newDaemonSet('foo3'), simpleDaemonSetLabel2);
  const all = view(ds1, ds2, ds3);
  const owned = newControllerRevision('foo1-1', simpleDaemonSetLabel, ds1);
  const orphan = newControllerRevision('orphan-1', simpleDaemonSetLabel);
  const strayOwned = newControllerRevision(
    'x-1',
    simpleDaemonSetLabel,
    newDaemonSet('foo1')
  );

  it.each([
    { name: 'owned: no sync (upstream only logs)', cr: owned, want: NOTHING },
    { name: 'owner unresolved: nothing', cr: strayOwned, want: NOTHING },
    {
      name: 'orphan: matching DaemonSets',
      cr: orphan,
      want: enqueues(ds1, ds2),
    },
    {
      name: 'unlabelled orphan: nothing',
      cr: withLabels(orphan, undefined),
      want: NOTHING,
    },
    {
      name: 'owned and being deleted: its owner (as a delete)',
      cr: {
        ...owned,
        metadata: {
          ...owned.metadata,
          deletionTimestamp: '2026-01-01T00:00:00Z',
        },
      },
      want: enqueues(ds1),
    },
  ])('addHistory: $name', ({ cr, want }) => {
    // Act / Assess
    expect(addHistory(all, cr)).toEqual(want);
  });

  it.each([
    {
      name: 'same resourceVersion: nothing',
      old: owned,
      cur: clone(owned),
      want: NOTHING,
    },
    {
      name: 'owned: its owner',
      old: owned,
      cur: bumped(owned),
      want: enqueues(ds1),
    },
    {
      name: 'controller ref changed: old and new owner',
      old: withOwners(owned, [controllerRefTo(ds2)]),
      cur: bumped(owned),
      want: enqueues(ds2, ds1),
    },
    {
      name: 'old owner unresolved, new owner gone: nothing',
      old: strayOwned,
      cur: bumped(
        withOwners(strayOwned, [{ ...controllerRefTo(ds1), uid: 'gone' }])
      ),
      want: NOTHING,
    },
    {
      name: 'controller ref removed: old owner and matching DaemonSets',
      old: owned,
      cur: bumped(withOwners(owned, undefined)),
      want: enqueues(ds1, ds2),
    },
    {
      name: 'orphan, same labels: nothing',
      old: orphan,
      cur: bumped(orphan),
      want: NOTHING,
    },
    {
      name: 'orphan, new labels: matching DaemonSets',
      old: withLabels(orphan, { foo2: 'bar2' }),
      cur: bumped(orphan),
      want: enqueues(ds1, ds2),
    },
  ])('updateHistory: $name', ({ old, cur, want }) => {
    // Act / Assess
    expect(updateHistory(all, old, cur)).toEqual(want);
  });

  it.each([
    { name: 'owned: its owner', cr: owned, want: enqueues(ds1) },
    { name: 'orphan: nothing', cr: orphan, want: NOTHING },
    { name: 'owner unresolved: nothing', cr: strayOwned, want: NOTHING },
  ])('deleteHistory (also tombstones): $name', ({ cr, want }) => {
    // Act / Assess
    expect(deleteHistory(all, cr)).toEqual(want);
  });
});

function withSelector(
  ds: DaemonSet,
  matchLabels: Record<string, string>
): DaemonSet {
  const copy = clone(ds);
  if (copy.spec) copy.spec.selector = { matchLabels: { ...matchLabels } };
  return copy;
}

function withSelectorExpr(ds: DaemonSet): DaemonSet {
  const copy = clone(ds);
  if (copy.spec) {
    copy.spec.selector = {
      matchExpressions: [{ key: 'name', operator: 'NotIn', values: ['x'] }],
    };
  }
  return copy;
}
