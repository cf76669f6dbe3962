/**
 * Ports the surge tests of upstream pkg/controller/daemon/
 * daemon_controller_test.go: how `manage` prunes a node's pods when the
 * RollingUpdate strategy allows surge (maxSurge 1, maxUnavailable 0).
 */
import { describe, expect, it } from 'vitest';
import type { Pod } from '#lib/reconcile/k8s/types.js';
import {
  makeNodes,
  makePods,
  markPodDeleting,
  markPodReady,
  newPod,
  simpleDaemonSetLabel,
  simpleDaemonSetLabel2,
} from '#test/helpers/builders.js';
import {
  createdAt,
  daemonPodsByNode,
  expectSyncOk,
  markPodNotReady,
  newDaemonSetWith,
  surgeStrategy,
  withoutHash,
} from '#test/helpers/daemon-scenario.js';
import {
  addDaemonSet,
  clearExpectations,
  newHarness,
} from '#test/helpers/harness.js';

/** Returns a fixture with five nodes and a surging DaemonSet. */
const surgeFixture = (minReadySeconds = 0) => {
  const h = newHarness();
  const ds = newDaemonSetWith(surgeStrategy(1));
  if (ds.spec) ds.spec.minReadySeconds = minReadySeconds;
  addDaemonSet(h, ds);
  h.cluster.nodes.push(...makeNodes(0, 5));
  return { h, ds };
};

const names = (pods: readonly Pod[]) =>
  pods.map((p) => p.metadata?.name ?? '').sort();

describe('syncDaemonSet', () => {
  describe('with surge', () => {
    it("converges-after-faults: asks for a requeue when the new pod that holds the rollout becomes available (campaign seed 60438: without it, a controller clock behind the node's left the old pod forever)", async () => {
      // Prepare: one node, its new pod Ready for 10 s of minReadySeconds 15,
      // its old pod Ready: nothing to do but wait.
      const h = newHarness();
      const ds = newDaemonSetWith(surgeStrategy(1));
      if (ds.spec) ds.spec.minReadySeconds = 15;
      addDaemonSet(h, ds);
      h.cluster.nodes.push(...makeNodes(0, 1));
      h.clock.set(60_000);
      const current = markPodReady(
        createdAt(newPod('node-0-', 'node-0', simpleDaemonSetLabel, ds), 40),
        50_000
      );
      const old = markPodReady(
        createdAt(
          withoutHash(
            newPod('node-0-old-', 'node-0', simpleDaemonSetLabel, ds)
          ),
          10
        ),
        0
      );
      h.cluster.pods.push(current, old);
      // Act
      const result = await expectSyncOk(h, ds, {
        creates: 0,
        deletes: 0,
        events: 0,
      });
      // Assess: back when the new pod is available, 5 s from now.
      expect(result?.requeueAfterMs).toBe(5_000);
    });

    it('TestSurgeDealsWithExistingPods: prunes duplicates to one pod per node and creates where none is left', async () => {
      // Prepare
      const { h, ds } = surgeFixture();
      h.cluster.pods.push(
        ...makePods('node-1', simpleDaemonSetLabel, ds, 1),
        ...makePods('node-2', simpleDaemonSetLabel, ds, 2),
        ...makePods('node-3', simpleDaemonSetLabel, ds, 5),
        ...makePods('node-4', simpleDaemonSetLabel2, ds, 2)
      );
      // Act
      await expectSyncOk(h, ds, { creates: 2, deletes: 5, events: 0 });
      // Assess
      for (const pods of daemonPodsByNode(h, ds).values()) {
        expect(pods).toHaveLength(1);
      }
    });

    it('TestSurgePreservesReadyOldPods: keeps the new pod and the oldest ready old pod, deletes the younger old pod', async () => {
      // Prepare
      const { h, ds } = surgeFixture();
      const current = createdAt(
        newPod('node-1-', 'node-1', simpleDaemonSetLabel, ds),
        100
      );
      const oldest = markPodReady(
        createdAt(
          withoutHash(
            newPod('node-1-old-', 'node-1', simpleDaemonSetLabel, ds)
          ),
          50
        ),
        0
      );
      const oldReady = markPodReady(
        createdAt(
          withoutHash(
            newPod('node-1-delete-', 'node-1', simpleDaemonSetLabel, ds)
          ),
          60
        ),
        0
      );
      h.cluster.pods.push(
        current,
        oldest,
        oldReady,
        ...makePods('node-2', simpleDaemonSetLabel, ds, 1)
      );
      // Act
      await expectSyncOk(h, ds, { creates: 3, deletes: 1, events: 0 });
      // Assess
      expect(h.cluster.pods).not.toContain(oldReady);
      expect(names(daemonPodsByNode(h, ds).get('node-1') ?? [])).toEqual(
        names([current, oldest])
      );
    });

    it('TestSurgeCreatesNewPodWhenAtMaxSurgeAndOldPodDeleted: creates on a node whose only pod is terminating even at max surge', async () => {
      // Prepare
      const { h, ds } = surgeFixture();
      // node-0 uses the surge budget: a new unready pod beside a ready old one
      h.cluster.pods.push(
        markPodNotReady(
          createdAt(newPod('node-0-', 'node-0', simpleDaemonSetLabel, ds), 100)
        ),
        markPodReady(
          createdAt(
            withoutHash(
              newPod('node-0-old-ready-', 'node-0', simpleDaemonSetLabel, ds)
            ),
            50
          ),
          0
        )
      );
      for (let i = 1; i < 5; i++) {
        const old = markPodReady(
          createdAt(
            withoutHash(
              newPod(
                `node-${i}-preserve-`,
                `node-${i}`,
                simpleDaemonSetLabel,
                ds
              )
            ),
            1
          ),
          0
        );
        if (i === 4) {
          markPodDeleting(old, 31_000);
          if (old.metadata) old.metadata.deletionGracePeriodSeconds = 30;
        }
        h.cluster.pods.push(old);
      }
      await clearExpectations(h, ds);
      // Act
      await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
      // Assess
      const node4 = daemonPodsByNode(h, ds).get('node-4') ?? [];
      expect(node4).toHaveLength(2);
      expect(node4.filter((p) => p.metadata?.deletionTimestamp)).toHaveLength(
        1
      );
    });

    it('TestSurgeDeletesUnreadyOldPods: deletes an unready oldest old pod and the extra old pod', async () => {
      // Prepare
      const { h, ds } = surgeFixture();
      const current = createdAt(
        newPod('node-1-', 'node-1', simpleDaemonSetLabel, ds),
        100
      );
      const oldUnready = markPodNotReady(
        createdAt(
          withoutHash(
            newPod('node-1-old-unready-', 'node-1', simpleDaemonSetLabel, ds)
          ),
          50
        )
      );
      const oldReady = markPodReady(
        createdAt(
          withoutHash(
            newPod('node-1-delete-', 'node-1', simpleDaemonSetLabel, ds)
          ),
          60
        ),
        0
      );
      h.cluster.pods.push(
        current,
        oldUnready,
        oldReady,
        ...makePods('node-2', simpleDaemonSetLabel, ds, 1)
      );
      // Act
      await expectSyncOk(h, ds, { creates: 3, deletes: 2, events: 0 });
      // Assess
      expect(names(daemonPodsByNode(h, ds).get('node-1') ?? [])).toEqual(
        names([current])
      );
    });

    it.each([
      {
        test: 'TestSurgePreservesOldReadyWithUnsatisfiedMinReady',
        phrase:
          'keeps the ready old pod while the new pod is ready for less than minReadySeconds',
        readyFor: 10,
        deletes: 1,
        oldestKept: true,
      },
      {
        test: 'TestSurgeDeletesOldReadyWithUnsatisfiedMinReady',
        phrase: 'deletes the ready old pod once the new pod is available',
        readyFor: 20,
        deletes: 2,
        oldestKept: false,
      },
    ])('$test: $phrase', async ({ readyFor, deletes, oldestKept }) => {
      // Prepare
      const { h, ds } = surgeFixture(15);
      h.clock.set((50 + readyFor) * 1000);
      const current = markPodReady(
        createdAt(newPod('node-1-', 'node-1', simpleDaemonSetLabel, ds), 100),
        50_000
      );
      const oldReady = markPodReady(
        createdAt(
          withoutHash(
            newPod('node-1-old-ready-', 'node-1', simpleDaemonSetLabel, ds)
          ),
          50
        ),
        0
      );
      const oldExcess = markPodReady(
        createdAt(
          withoutHash(
            newPod('node-1-delete-', 'node-1', simpleDaemonSetLabel, ds)
          ),
          60
        ),
        0
      );
      h.cluster.pods.push(
        current,
        oldReady,
        oldExcess,
        ...makePods('node-2', simpleDaemonSetLabel, ds, 1)
      );
      // Act
      await expectSyncOk(h, ds, { creates: 3, deletes, events: 0 });
      // Assess
      expect(h.cluster.pods).not.toContain(oldExcess);
      expect(names(daemonPodsByNode(h, ds).get('node-1') ?? [])).toEqual(
        names(oldestKept ? [current, oldReady] : [current])
      );
    });
  });
});
