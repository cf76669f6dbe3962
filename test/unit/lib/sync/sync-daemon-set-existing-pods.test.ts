/**
 * Ports the sync tests of upstream pkg/controller/daemon/
 * daemon_controller_test.go about pods that already exist: duplicates,
 * failed and terminating pods, pods pinned to vanished nodes, ownership, and
 * DaemonSets that must not be acted on.
 */
import { describe, expect, it } from 'vitest';
import type { Pod } from '#lib/reconcile/k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '#lib/reconcile/k8s/types.js';
import { failedPodsBackoffKey } from '#lib/reconcile/pods-should-be-on-node.js';
import { newControllerRevision } from '#lib/reconcile/revision-history.js';
import {
  clone,
  makeFailedPods,
  makeNodes,
  makePods,
  markPodDeleting,
  newDaemonSet,
  newNode,
  newPinnedPod,
  newPod,
  rfc3339,
  simpleDaemonSetLabel,
  simpleDaemonSetLabel2,
  simpleNodeLabel,
  updateStrategies,
} from '#test/helpers/builders.js';
import {
  expectSyncOk,
  newDaemonSetWith,
  podCountsByNode,
  resourcePodSpec,
  templateSpec,
} from '#test/helpers/daemon-scenario.js';
import {
  addDaemonSet,
  CLUSTER,
  expectSync,
  newHarness,
  stored,
} from '#test/helpers/harness.js';

const withPhase = (pod: Pod, phase: string): Pod => {
  pod.status = { ...pod.status, phase };
  return pod;
};

const namesOf = (pods: readonly Pod[]) =>
  pods.map((p) => p.metadata?.name ?? '').sort();

describe('syncDaemonSet', () => {
  describe('existing pods', () => {
    it.each(updateStrategies())(
      'TestDealsWithExistingPods ($name): prunes duplicates to one pod per node and creates where none is left',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy));
        h.cluster.nodes.push(...makeNodes(0, 5));
        const released = makePods('node-4', simpleDaemonSetLabel2, ds, 2);
        h.cluster.pods.push(
          ...makePods('node-1', simpleDaemonSetLabel, ds, 1),
          ...makePods('node-2', simpleDaemonSetLabel, ds, 2),
          ...makePods('node-3', simpleDaemonSetLabel, ds, 5),
          ...released
        );
        // Act
        await expectSyncOk(h, ds, { creates: 2, deletes: 5, events: 0 });
        // Assess: pods the selector no longer matches are released, kept
        expect(podCountsByNode(h, ds)).toEqual({
          'node-0': 1,
          'node-1': 1,
          'node-2': 1,
          'node-3': 1,
          'node-4': 1,
        });
        const releasedNames = namesOf(released);
        expect(
          namesOf(
            h.cluster.pods.filter((p) =>
              releasedNames.includes(p.metadata?.name ?? '')
            )
          )
        ).toEqual(releasedNames);
      }
    );

    it.each(updateStrategies())(
      'TestDeleteUnscheduledPodForNotExistingNode ($name): deletes an unbound pod pinned to a missing node and leaves bound pods to PodGC',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy));
        h.cluster.nodes.push(...makeNodes(0, 1));
        const boundToMissing = newPod(
          'node-1-',
          'node-1',
          simpleDaemonSetLabel,
          ds
        );
        const pinned = newPinnedPod(
          'pod1-node-3',
          'node-2',
          simpleDaemonSetLabel,
          ds
        );
        h.cluster.pods.push(
          ...makePods('node-0', simpleDaemonSetLabel, ds, 1),
          boundToMissing,
          pinned
        );
        // Act
        await expectSyncOk(h, ds, { creates: 0, deletes: 1, events: 0 });
        // Assess
        expect(h.cluster.pods).not.toContain(pinned);
        expect(h.cluster.pods).toContain(boundToMissing);
      }
    );

    it('TestGetNodesToDaemonPods (exclude deleted terminal pods): adopts matching orphans, releases non-matching pods and ignores deleted terminal pods in manage', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('foo'));
      const ds2 = addDaemonSet(h, newDaemonSet('foo2'));
      h.cluster.nodes.push(...makeNodes(0, 2));
      const label = simpleDaemonSetLabel;
      const owned0 = newPod('matching-owned-0-', 'node-0', label, ds);
      const orphan0 = newPod('matching-orphan-0-', 'node-0', label);
      const owned1 = newPod('matching-owned-1-', 'node-1', label, ds);
      const orphan1 = newPod('matching-orphan-1-', 'node-1', label);
      const succeeded = withPhase(
        newPod('matching-owned-succeeded-pod-0-', 'node-0', label, ds),
        'Succeeded'
      );
      const failed = withPhase(
        newPod('matching-owned-failed-pod-1-', 'node-1', label, ds),
        'Failed'
      );
      const nonMatchingOwned = newPod(
        'non-matching-owned-0-',
        'node-0',
        simpleDaemonSetLabel2,
        ds
      );
      const nonMatchingOrphan = newPod(
        'non-matching-orphan-1-',
        'node-1',
        simpleDaemonSetLabel2
      );
      const ownedByOther = newPod(
        'matching-owned-by-other-0-',
        'node-0',
        label,
        ds2
      );
      const deletedTerminal = [
        markPodDeleting(
          withPhase(
            newPod(
              'matching-owned-succeeded-deleted-pod-0-',
              'node-0',
              label,
              ds
            ),
            'Succeeded'
          ),
          h.clock.now()
        ),
        markPodDeleting(
          withPhase(
            newPod('matching-owned-failed-deleted-pod-1-', 'node-1', label, ds),
            'Failed'
          ),
          h.clock.now()
        ),
      ];
      h.cluster.pods.push(
        owned0,
        orphan0,
        owned1,
        orphan1,
        succeeded,
        failed,
        nonMatchingOwned,
        nonMatchingOrphan,
        ownedByOther,
        ...deletedTerminal
      );
      // Act
      await expectSyncOk(h, ds, { creates: 0, deletes: 4, events: 2 });
      // Assess: the terminal pods go with an event each; of two running
      // pods on a node the first by name stays (no creationTimestamps).
      expect(namesOf(h.cluster.pods)).toEqual(
        namesOf([
          orphan0,
          orphan1,
          nonMatchingOwned,
          nonMatchingOrphan,
          ownedByOther,
          ...deletedTerminal,
        ])
      );
      expect(h.events.events.map((e) => e.reason).sort()).toEqual([
        'FailedDaemonPod',
        'SucceededDaemonPod',
      ]);
      const owners = (pod: Pod) =>
        h.cluster.pods
          .find((p) => p.metadata?.uid === pod.metadata?.uid)
          ?.metadata?.ownerReferences?.map((r) => r.uid) ?? [];
      expect(owners(orphan0)).toEqual([ds.metadata?.uid]);
      expect(owners(orphan1)).toEqual([ds.metadata?.uid]);
      expect(owners(nonMatchingOwned)).toEqual([]);
      expect(owners(nonMatchingOrphan)).toEqual([]);
      expect(owners(ownedByOther)).toEqual([ds2.metadata?.uid]);
      expect(stored(h, ds).status).toMatchObject({
        desiredNumberScheduled: 2,
        currentNumberScheduled: 2,
      });
    });

    it('TestGetNodesToDaemonPods (exclude deleted terminal pods): creates a replacement beside a deleted terminal pod', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('foo'));
      h.cluster.nodes.push(...makeNodes(0, 1));
      const [gone] = makeFailedPods('node-0', simpleDaemonSetLabel, ds, 1);
      h.cluster.pods.push(markPodDeleting(gone as Pod, h.clock.now()));
      // Act / Assess (kubernetes/kubernetes#118716)
      await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
    });

    it('TestGetNodesToDaemonPods (include deleted terminal pods): keeps an old revision a deleted terminal pod still carries', async () => {
      // Prepare
      const h = newHarness();
      const ds = newDaemonSet('foo');
      if (ds.spec) ds.spec.revisionHistoryLimit = 0;
      addDaemonSet(h, ds);
      h.cluster.nodes.push(...makeNodes(0, 1));
      const oldTemplate = (image: string) => {
        const old = clone(ds);
        const [container] = templateSpec(old).containers;
        if (container) container.image = image;
        return old;
      };
      h.cluster.revisions.push(
        newControllerRevision(oldTemplate('foo/bar:1'), 'old1', 1),
        newControllerRevision(oldTemplate('foo/bar:2'), 'old2', 2)
      );
      const pod = newPod('node-0-', 'node-0', simpleDaemonSetLabel, ds);
      pod.metadata = {
        ...pod.metadata,
        labels: {
          ...simpleDaemonSetLabel,
          [CONTROLLER_REVISION_HASH_LABEL]: 'old1',
        },
      };
      h.cluster.pods.push(
        markPodDeleting(withPhase(pod, 'Failed'), h.clock.now())
      );
      // Act
      await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
      // Assess
      const names = h.cluster.revisions.map((r) => r.metadata?.name);
      expect(names).toContain('foo-old1');
      expect(names).not.toContain('foo-old2');
      expect(names).toHaveLength(2);
    });
  });

  describe('failed and terminating pods', () => {
    const killCases = [
      {
        failed: 0,
        normal: 1,
        creates: 0,
        deletes: 0,
        events: 0,
        left: 1,
        test: 'normal (do nothing)',
      },
      {
        failed: 0,
        normal: 0,
        creates: 1,
        deletes: 0,
        events: 0,
        left: 1,
        test: 'no pods (create 1)',
      },
      {
        failed: 1,
        normal: 0,
        creates: 0,
        deletes: 1,
        events: 1,
        left: 0,
        test: '1 failed pod (kill 1), 0 normal pod (create 0; will create in the next sync)',
      },
      {
        failed: 1,
        normal: 3,
        creates: 0,
        deletes: 3,
        events: 1,
        left: 1,
        test: '1 failed pod (kill 1), 3 normal pods (kill 2)',
      },
    ];
    it.each(
      killCases.flatMap((c) => updateStrategies().map((s) => ({ ...c, ...s })))
    )(
      'TestDaemonKillFailedPods ($name, $test): kills failed pods and keeps at most one pod per node',
      async ({ strategy, failed, normal, creates, deletes, events, left }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy));
        h.cluster.nodes.push(...makeNodes(0, 1));
        h.cluster.pods.push(
          ...makeFailedPods('node-0', simpleDaemonSetLabel, ds, failed),
          ...makePods('node-0', simpleDaemonSetLabel, ds, normal)
        );
        // Act
        await expectSyncOk(h, ds, { creates, deletes, events });
        // Assess
        expect(
          h.cluster.pods.filter((p) => p.status?.phase === 'Failed')
        ).toEqual([]);
        expect(h.cluster.pods).toHaveLength(left);
      }
    );

    it.each(updateStrategies())(
      'TestDaemonKillFailedPodsBackoff ($name): deletes failed pods at most once per backoff period',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = newDaemonSetWith(strategy);
        // The backoff key holds status.observedGeneration; upstream's lister
        // never sees the fake's status writes, so start from an observed DS.
        if (ds.status) ds.status.observedGeneration = 1;
        addDaemonSet(h, ds);
        h.cluster.nodes.push(...makeNodes(0, 1));
        h.cluster.pods.push(
          ...makeFailedPods('node-0', simpleDaemonSetLabel, ds, 1)
        );
        const backoffId = `${CLUSTER}/${failedPodsBackoffKey(ds, 'node-0')}`;
        // Act: the first sync deletes the pod and starts the backoff
        await expectSyncOk(h, ds, { creates: 0, deletes: 1, events: 1 });
        // Assess
        expect(h.events.events[0]).toMatchObject({
          type: 'Warning',
          reason: 'FailedDaemonPod',
        });
        const initial = h.backoff.entries.get(backoffId);
        expect(initial?.delayMs).toBe(1000);
        // Act: upstream's fake keeps the undeletable pod; ours deletes it,
        // so a replacement is created and fails at once.
        await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
        for (const p of h.cluster.pods) withPhase(p, 'Failed');
        const limited = await expectSyncOk(h, ds, {
          creates: 0,
          deletes: 0,
          events: 0,
        });
        // Assess: limited by the backoff, requeued after its delay
        expect(limited?.requeueAfterMs).toBe(1000);
        expect(h.backoff.entries.get(backoffId)).toEqual(initial);
        // Act: just before the backoff ends
        h.clock.step(999);
        const before = await expectSyncOk(h, ds, {
          creates: 0,
          deletes: 0,
          events: 0,
        });
        // Assess
        expect(before?.requeueAfterMs).toBe(1000);
        // Act: at the end of the backoff
        h.clock.step(1);
        await expectSyncOk(h, ds, { creates: 0, deletes: 1, events: 1 });
        // Assess
        expect(h.backoff.entries.get(backoffId)?.delayMs).toBe(2000);
      }
    );

    it.each(updateStrategies())(
      'TestDaemonSetRespectsTermination ($name): creates no pod while the only pod on the node is terminating',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy));
        h.cluster.nodes.push(...makeNodes(0, 1, simpleNodeLabel));
        const [pod] = makePods('node-0', simpleDaemonSetLabel, ds, 1);
        h.cluster.pods.push(markPodDeleting(pod as Pod, h.clock.now()));
        // Act
        await expectSyncOk(h, ds, { creates: 0, deletes: 0, events: 0 });
        // Assess
        expect(h.cluster.pods).toHaveLength(1);
      }
    );
  });

  describe('DaemonSets it must not act on', () => {
    it.each(updateStrategies())(
      'TestPodIsNotDeletedByDaemonsetWithEmptyLabelSelector ($name): records SelectingAll and touches nothing',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = newDaemonSetWith(strategy);
        if (ds.spec) ds.spec.selector = {};
        templateSpec(ds).nodeSelector = { foo: 'bar' };
        addDaemonSet(h, ds);
        h.cluster.nodes.push(newNode('node1'));
        const pod: Pod = {
          metadata: { namespace: 'default', labels: { bang: 'boom' } },
          spec: { nodeName: 'node1', containers: [] },
        };
        h.cluster.pods.push(pod);
        // Act
        await expectSyncOk(h, ds, { creates: 0, deletes: 0, events: 1 });
        // Assess
        expect(h.events.events).toEqual([
          {
            type: 'Warning',
            reason: 'SelectingAll',
            message:
              'This daemon set is selecting all pods. A non-empty selector is required.',
          },
        ]);
        expect(h.cluster.pods).toEqual([pod]);
        expect(h.cluster.statusUpdates).toEqual([]);
      }
    );

    it.each(updateStrategies())(
      'TestDontDoAnythingIfBeingDeleted ($name): neither creates pods, nor writes revisions or status',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const podSpec = resourcePodSpec('not-too-much-mem', '75M', '75m');
        const ds = newDaemonSetWith(strategy);
        if (ds.spec) ds.spec.template.spec = structuredClone(podSpec);
        ds.metadata = {
          ...ds.metadata,
          deletionTimestamp: rfc3339(h.clock.now()),
        };
        addDaemonSet(h, ds);
        h.cluster.nodes.push(newNode('not-too-much-mem'));
        h.cluster.pods.push({ spec: structuredClone(podSpec) });
        // Act
        await expectSyncOk(h, ds, { creates: 0, deletes: 0, events: 0 });
        // Assess
        expect(h.cluster.revisions).toEqual([]);
        expect(h.cluster.statusUpdates).toEqual([]);
      }
    );

    it.each(updateStrategies())(
      'TestDontDoAnythingIfBeingDeletedRace ($name): adopts no orphan and creates nothing when a fresh read shows the DaemonSet being deleted',
      async ({ strategy }) => {
        // Prepare: the cache says alive, the API server says deleting
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy));
        const deletionTimestamp = rfc3339(h.clock.now());
        h.cluster.freshDaemonSet = (d) =>
          d && { ...d, metadata: { ...d.metadata, deletionTimestamp } };
        h.cluster.nodes.push(...makeNodes(0, 5));
        const orphan = newPod('pod1-', 'node-0', simpleDaemonSetLabel);
        h.cluster.pods.push(orphan);
        // Act
        const { error } = await expectSync(h, ds, {
          creates: 0,
          deletes: 0,
          events: 0,
        });
        // Assess
        expect(error).toBeDefined();
        expect(h.cluster.freshGets).toBeGreaterThan(0);
        expect(h.cluster.pods).toEqual([orphan]);
        expect(orphan.metadata?.ownerReferences).toBeUndefined();
      }
    );
  });
});
