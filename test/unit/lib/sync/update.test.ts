/**
 * Ports pkg/controller/daemon/update_test.go: rolling updates through
 * syncDaemonSet, one sync at a time, with upstream's `clearExpectations` and
 * `markPodsReady` between steps. Upstream visits nodes in random (Go map)
 * order; these tests, like upstream's, assert counts, not which node.
 */
import { describe, expect, it } from 'vitest';
import { getTargetNodeName } from '#lib/reconcile/node-affinity.js';
import type { ControllerRevision, DaemonSet } from '#lib/reconcile/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '#lib/reconcile/types.js';
import { makeNodes, newDaemonSet } from '../../../helpers/builders.js';
import {
  addDaemonSet,
  clearExpectations,
  expectSync,
  type Harness,
  newHarness,
  sync,
} from '../../../helpers/harness.js';
import {
  markPodsReady,
  newUpdateSurge,
  newUpdateUnavailable,
  readyCount,
  setImage,
  setPodReadiness,
  updateSpec,
} from '../../../helpers/rollout.js';

/** Clears expectations, then syncs and checks the counts. */
const step = async (
  h: Harness,
  ds: DaemonSet,
  creates: number,
  deletes: number
) => {
  await clearExpectations(h, ds);
  await expectSync(h, ds, { creates, deletes, events: 0 });
};

const setup = async (nodes: number) => {
  const h = newHarness();
  const ds = addDaemonSet(h, newDaemonSet('foo'));
  h.cluster.nodes = makeNodes(0, nodes);
  await expectSync(h, ds, { creates: nodes, deletes: 0, events: 0 });
  return { h, ds };
};

const currentHash = (h: Harness): string => {
  const newest = [...h.cluster.revisions].sort(
    (a: ControllerRevision, b: ControllerRevision) => b.revision - a.revision
  )[0];
  return newest?.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';
};

describe('rolling update (update_test.go)', () => {
  it('TestDaemonSetUpdatesPods: replaces pods in waves of maxUnavailable', async () => {
    // Prepare
    const { h, ds } = await setup(5);
    markPodsReady(h);
    setImage(h, ds, 'foo2/bar2');
    updateSpec(h, ds, (s) => {
      s.updateStrategy = newUpdateUnavailable(2);
    });
    // Act / Assess
    await step(h, ds, 0, 2);
    await step(h, ds, 2, 0);
    markPodsReady(h);
    await step(h, ds, 0, 2);
    await step(h, ds, 2, 0);
    markPodsReady(h);
    await step(h, ds, 0, 1);
    await step(h, ds, 1, 0);
    markPodsReady(h);
    await step(h, ds, 0, 0);
  });

  it('TestDaemonSetUpdatesPodsWithMaxSurge: creates up to maxSurge before deleting', async () => {
    // Prepare
    const { h, ds } = await setup(5);
    markPodsReady(h);
    setImage(h, ds, 'foo2/bar2');
    updateSpec(h, ds, (s) => {
      s.updateStrategy = newUpdateSurge(2);
    });
    // Act / Assess
    await step(h, ds, 2, 0);
    await step(h, ds, 0, 0);
    markPodsReady(h);
    await step(h, ds, 2, 2);
    await step(h, ds, 0, 0);
    markPodsReady(h);
    await step(h, ds, 5 % 2, 2);
    await step(h, ds, 0, 0);
    markPodsReady(h);
    await step(h, ds, 0, 5 % 2);
    await step(h, ds, 0, 0);
  });

  it('TestDaemonSetUpdatesWhenNewPodIsNotReady: stalls while maxUnavailable new pods are unready', async () => {
    // Prepare
    const { h, ds } = await setup(5);
    markPodsReady(h);
    setImage(h, ds, 'foo2/bar2');
    updateSpec(h, ds, (s) => {
      s.updateStrategy = newUpdateUnavailable(3);
    });
    // Act / Assess
    await step(h, ds, 0, 3);
    await step(h, ds, 3, 0);
    await step(h, ds, 0, 0);
  });

  it('TestDaemonSetUpdatesAllOldPodsNotReady: replaces every unready old pod at once', async () => {
    // Prepare
    const { h, ds } = await setup(5);
    setImage(h, ds, 'foo2/bar2');
    updateSpec(h, ds, (s) => {
      s.updateStrategy = newUpdateUnavailable(3);
    });
    // Act / Assess
    await step(h, ds, 0, 5);
    await step(h, ds, 5, 0);
    await step(h, ds, 0, 0);
  });

  it('TestDaemonSetUpdatesAllOldPodsNotReadyMaxSurge: surges onto every unready node and follows minReadySeconds', async () => {
    // Prepare
    const { h, ds } = await setup(5);
    setImage(h, ds, 'foo2/bar2');
    updateSpec(h, ds, (s) => {
      s.updateStrategy = newUpdateSurge(3);
    });
    // Act / Assess: all old pods are unavailable, so all are surged.
    h.clock.set(100_000);
    await step(h, ds, 5, 0);
    // Waiting for pods to go ready; old pods are deleted.
    h.clock.set(200_000);
    await step(h, ds, 0, 5);

    setPodReadiness(h, true, 5, () => true);
    updateSpec(h, ds, (s) => {
      s.minReadySeconds = 15;
    });
    setImage(h, ds, 'foo3/bar3');
    h.clock.set(300_000);
    await step(h, ds, 3, 0);

    const hash = currentHash(h);
    const isNew = (labels?: Record<string, string>) =>
      labels?.[CONTROLLER_REVISION_HASH_LABEL] === hash;
    const nodesWithNew = new Set(
      h.cluster.pods
        .filter((p) => isNew(p.metadata?.labels))
        .map((p) => getTargetNodeName(p))
    );
    // Two updated pods ready at 300; one old pod on a node without an
    // updated pod turns unready.
    setPodReadiness(h, true, 2, (p) => isNew(p.metadata?.labels));
    setPodReadiness(
      h,
      false,
      1,
      (p) =>
        !isNew(p.metadata?.labels) && !nodesWithNew.has(getTargetNodeName(p))
    );
    // New pods still wait for minReadySeconds: one pod replaces the unready old one.
    h.clock.set(310_000);
    await step(h, ds, 1, 0);
    // The new pods are available now: delete the old pods.
    h.clock.set(320_000);
    await step(h, ds, 1, 3);
    setPodReadiness(h, true, 3, (p) => isNew(p.metadata?.labels));
    h.clock.set(340_000);
    await step(h, ds, 0, 2);
    // Done.
    h.clock.set(350_000);
    await step(h, ds, 0, 0);
  });

  it('TestDaemonSetUpdatesNoTemplateChanged: switching to RollingUpdate alone restarts nothing', async () => {
    // Prepare
    const { h, ds } = await setup(5);
    updateSpec(h, ds, (s) => {
      s.updateStrategy = newUpdateUnavailable(3);
    });
    // Act / Assess
    await step(h, ds, 0, 0);
  });

  it('TestDaemonSetUpdatesSomeOldPodsNotReady: a second update replaces only the unready new pods', async () => {
    // Prepare
    const { h, ds } = await setup(5);
    markPodsReady(h);
    setImage(h, ds, 'foo2/bar2');
    updateSpec(h, ds, (s) => {
      s.updateStrategy = newUpdateUnavailable(2);
    });
    await step(h, ds, 0, 2);
    await step(h, ds, 2, 0);
    // Act: another update while the 2 new pods are still unready.
    setImage(h, ds, 'foo2/bar3');
    await step(h, ds, 0, 2);
    await step(h, ds, 2, 0);
    await step(h, ds, 0, 0);
    // Assess: the 3 old ready pods were never touched.
    expect(readyCount(h)).toBe(3);
  });

  it('TestDaemonSetUpdatesSaveOldHealthyPods: never restarts a ready pod while unavailable ones use the budget', async () => {
    // Prepare
    const { h, ds } = await setup(20);
    markPodsReady(h);
    setImage(h, ds, 'foo2/bar2');
    updateSpec(h, ds, (s) => {
      s.updateStrategy = newUpdateUnavailable(10);
    });
    await step(h, ds, 0, 10);
    await step(h, ds, 10, 0);
    // Act: new templates with budgets below the 10 unavailable pods.
    for (const [i, budget] of [9, 3, 7, 1, 5].entries()) {
      setImage(h, ds, `foo2/bar${i + 3}`);
      updateSpec(h, ds, (s) => {
        s.updateStrategy = newUpdateUnavailable(budget);
      });
      await step(h, ds, 0, 10);
      await step(h, ds, 10, 0);
      // Assess
      expect(readyCount(h)).toBe(10);
    }
    // A budget above the unavailable count replaces one ready pod too.
    updateSpec(h, ds, (s) => {
      s.updateStrategy = newUpdateUnavailable(11);
    });
    setImage(h, ds, 'foo2/last');
    await step(h, ds, 0, 11);
    await step(h, ds, 11, 0);
    expect(readyCount(h)).toBe(9);
  });

  it('TestDaemonSetUpdatesAllOldNotReadyPodsAndNewNotReadyPods: replaces unready old pods beyond an exhausted budget', async () => {
    // Prepare
    const { h, ds } = await setup(100);
    markPodsReady(h);
    setImage(h, ds, 'foo2/bar2');
    updateSpec(h, ds, (s) => {
      s.updateStrategy = newUpdateUnavailable(10);
    });
    await step(h, ds, 0, 10);
    await step(h, ds, 10, 0);
    // Act: two old pods turn unready while the budget is spent on new ones.
    const hash = currentHash(h);
    setPodReadiness(
      h,
      false,
      2,
      (p) => p.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] !== hash
    );
    // Assess
    await step(h, ds, 0, 2);
    await step(h, ds, 2, 0);
    await step(h, ds, 0, 0);
  });

  it('TestDaemonSetUpdatesPodsNotMatchTainstWithMaxSurge: removes the pod of a no-longer-tolerated node only while enough stay available', async () => {
    // Prepare
    const h = newHarness();
    const ds = newDaemonSet('foo');
    if (ds.spec?.template.spec) {
      ds.spec.template.spec.tolerations = [
        { key: 'node-role', operator: 'Exists', effect: 'NoSchedule' },
      ];
    }
    addDaemonSet(h, ds);
    h.cluster.nodes = makeNodes(0, 5);
    const [tainted] = h.cluster.nodes;
    if (tainted)
      tainted.spec = { taints: [{ key: 'node-role', effect: 'NoSchedule' }] };
    await expectSync(h, ds, { creates: 5, deletes: 0, events: 0 });
    markPodsReady(h);
    // Act: drop the toleration and surge by 1.
    const stored = h.cluster.daemonSets[0] as DaemonSet;
    if (stored.spec?.template.spec) stored.spec.template.spec.tolerations = [];
    setImage(h, ds, 'foo2/bar2');
    updateSpec(h, ds, (s) => {
      s.updateStrategy = newUpdateSurge(1);
    });
    // Assess: one surge pod, and the tainted node's pod goes while 5 ≥ 4 are available.
    await step(h, ds, 1, 1);
    // Then roll on, one sync per step, until nothing is left to do.
    for (let i = 0; i < 12; i++) {
      markPodsReady(h);
      await clearExpectations(h, ds);
      const { error } = await sync(h, ds);
      expect(error).toBeUndefined();
    }
    const onTainted = h.cluster.pods.filter(
      (p) => getTargetNodeName(p) === 'node-0'
    );
    expect(onTainted).toEqual([]);
    expect(h.cluster.pods).toHaveLength(4);
    expect(
      h.cluster.pods.every((p) => p.spec?.containers[0]?.image === 'foo2/bar2')
    ).toBe(true);
  });
});
