/**
 * Scenario tests porting pkg/controller/daemon/update_test.go through
 * syncDaemonSet: each step is upstream's `clearExpectations` followed by
 * `expectSyncDaemonSets(creates, deletes, events)`, with `markPodsReady`
 * and `setPodReadiness` between steps and the FakeClock standing in for
 * `failedPodsBackoff.Clock`.
 *
 * Upstream visits nodes in Go map order (random); we visit them in node list
 * order. Like upstream, these tests assert counts and budgets, never which
 * node was chosen.
 *
 * Fixture difference: our `newDaemonSet` carries the template-generation
 * annotation the API server sets (upstream's test fixture has none), so pods
 * also carry `pod-template-generation`; a test that fakes an old pod
 * therefore rewrites both labels.
 */
import { describe, expect, it } from 'vitest';
import { parseDaemonSetKey } from '#lib/keys.js';
import { newControllerRef } from '#lib/reconcile/k8s/controller-ref.js';
import {
  ADVANCED_DAEMON_SET,
  type DaemonSetKind,
  NATIVE_DAEMON_SET,
} from '#lib/reconcile/k8s/daemon-set-kind.js';
import { getTargetNodeName } from '#lib/reconcile/k8s/node-affinity.js';
import { isPodReady } from '#lib/reconcile/k8s/pod-util.js';
import type {
  ControllerRevision,
  DaemonSet,
  Pod,
} from '#lib/reconcile/k8s/types.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  TEMPLATE_GENERATION_LABEL,
} from '#lib/reconcile/k8s/types.js';
import { placementOnce } from '#lib/reconcile/node-should-run.js';
import { controlledHistories } from '#lib/sync/claim.js';
import {
  makeNodes,
  newDaemonSet,
  setTemplate,
} from '../../../helpers/builders.js';
import {
  addDaemonSet,
  clearExpectations,
  expectSync,
  type Harness,
  keyOf,
  newHarness,
  stored,
} from '../../../helpers/harness.js';
import {
  markPodsReady,
  newUpdateSurge,
  newUpdateUnavailable,
  setImage,
  setPodReadiness,
  updateSpec,
} from '../../../helpers/rollout.js';

type Strategy = NonNullable<DaemonSet['spec']>['updateStrategy'];

/** Upstream's `clearExpectations` + `expectSyncDaemonSets(c, d, 0)`. */
const step = async (
  h: Harness,
  ds: DaemonSet,
  creates: number,
  deletes: number
): Promise<void> => {
  await clearExpectations(h, ds);
  const { error } = await expectSync(h, ds, { creates, deletes, events: 0 });
  expect(error).toBeUndefined();
};

/** Returns the DaemonSet as an object of `kind`. */
const ofKind = (ds: DaemonSet, kind: DaemonSetKind): DaemonSet => ({
  ...ds,
  apiVersion: kind.apiVersion,
  kind: kind.kind,
});

/** `nodes` nodes and DaemonSet foo; the first sync creates a pod on each. */
const launch = async (nodes: number, kind: DaemonSetKind) => {
  const h = newHarness();
  const ds = addDaemonSet(h, ofKind(newDaemonSet('foo'), kind));
  h.cluster.nodes = makeNodes(0, nodes);
  await expectSync(h, ds, { creates: nodes, deletes: 0, events: 0 });
  return { h, ds };
};

/** Upstream's template change plus strategy change in one update. */
const update = (
  h: Harness,
  ds: DaemonSet,
  image: string,
  strategy?: Strategy
): void => {
  setImage(h, ds, image);
  if (strategy) {
    updateSpec(h, ds, (s) => {
      s.updateStrategy = strategy;
    });
  }
};

/** Upstream `currentDSHash`: the hash of the highest revision. */
const currentHash = (h: Harness): string => {
  const [newest] = [...h.cluster.revisions].sort(
    (a, b) => b.revision - a.revision
  );
  return newest?.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';
};

const hashOf = (pod: Pod): string =>
  pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';

const readyNames = (h: Harness): Set<string> =>
  new Set(h.cluster.pods.filter(isPodReady).map((p) => p.metadata?.name ?? ''));

describe.each([
  { kind: NATIVE_DAEMON_SET, source: 'update_test.go' },
  // Kruise's daemonset_update_test.go carries upstream's tests under the
  // same names: the own kind runs them through the same core.
  { kind: ADVANCED_DAEMON_SET, source: 'Kruise daemonset_update_test.go' },
])('syncDaemonSet rolling update of $kind.kind ($source)', ({ kind }) => {
  it('TestDaemonSetUpdatesPods: replaces pods in waves of maxUnavailable', async () => {
    // Prepare
    const { h, ds } = await launch(5, kind);
    markPodsReady(h);
    update(h, ds, 'foo2/bar2', newUpdateUnavailable(2));
    // Act / Assess
    for (const wave of [2, 2, 1]) {
      await step(h, ds, 0, wave);
      await step(h, ds, wave, 0);
      markPodsReady(h);
    }
    await step(h, ds, 0, 0);
    expect(new Set(h.cluster.pods.map(hashOf))).toEqual(
      new Set([currentHash(h)])
    );
  });

  it('TestDaemonSetUpdatesPodsWithMaxSurge: creates up to maxSurge, then deletes old pods once new ones are ready', async () => {
    // Prepare
    const { h, ds } = await launch(5, kind);
    markPodsReady(h);
    const maxSurge = 2;
    update(h, ds, 'foo2/bar2', newUpdateSurge(maxSurge));
    // Act / Assess
    await step(h, ds, maxSurge, 0);
    await step(h, ds, 0, 0);
    markPodsReady(h);
    await step(h, ds, maxSurge, maxSurge);
    await step(h, ds, 0, 0);
    markPodsReady(h);
    await step(h, ds, 5 % maxSurge, maxSurge);
    await step(h, ds, 0, 0);
    markPodsReady(h);
    await step(h, ds, 0, 5 % maxSurge);
    await step(h, ds, 0, 0);
    expect(h.cluster.pods).toHaveLength(5);
  });

  it('TestDaemonSetUpdatesPodsNotMatchTainstWithMaxSurge: deletes the pod of a no-longer-tolerated node only while availability stays above desired', async () => {
    // Prepare
    const h = newHarness();
    const ds = ofKind(newDaemonSet('foo'), kind);
    const maxSurge = 1;
    if (ds.spec?.template.spec) {
      ds.spec.updateStrategy = newUpdateSurge(maxSurge);
      ds.spec.template.spec.tolerations = [
        { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' },
      ];
    }
    addDaemonSet(h, ds);
    h.cluster.nodes = makeNodes(0, 5);
    const [controlPlane] = h.cluster.nodes;
    if (controlPlane) {
      controlPlane.spec = {
        taints: [
          {
            key: 'node-role.kubernetes.io/control-plane',
            effect: 'NoSchedule',
          },
        ],
      };
    }
    await expectSync(h, ds, { creates: 5, deletes: 0, events: 0 });
    markPodsReady(h);
    // Act: the update drops the toleration.
    setTemplate(stored(h, ds), (t) => {
      if (t.spec) t.spec.tolerations = undefined;
    });
    // Assess: 5 available > 4 desired, so node-0's pod goes at once.
    await step(h, ds, maxSurge, 1);
    await step(h, ds, 0, 0);
    for (let i = 0; i < 3; i++) {
      markPodsReady(h);
      await step(h, ds, maxSurge, maxSurge);
      await step(h, ds, 0, 0);
    }
    markPodsReady(h);
    await step(h, ds, 0, maxSurge);
    await step(h, ds, 0, 0);
    expect(h.cluster.pods.map(getTargetNodeName).sort()).toEqual([
      'node-1',
      'node-2',
      'node-3',
      'node-4',
    ]);
  });

  it('TestDaemonSetUpdatesWhenNewPodIsNotReady (Kruise: TestDaemonSetUpdatesWhenNewPosIsNotReady): stalls once maxUnavailable new pods are unready', async () => {
    // Prepare
    const { h, ds } = await launch(5, kind);
    markPodsReady(h);
    const maxUnavailable = 3;
    update(h, ds, 'foo2/bar2', newUpdateUnavailable(maxUnavailable));
    // Act / Assess
    await step(h, ds, 0, maxUnavailable);
    await step(h, ds, maxUnavailable, 0);
    await step(h, ds, 0, 0);
  });

  it('TestDaemonSetUpdatesSomeOldPodsNotReady: a second update replaces only the unready new pods', async () => {
    // Prepare
    const { h, ds } = await launch(5, kind);
    markPodsReady(h);
    const maxUnavailable = 2;
    update(h, ds, 'foo2/bar2', newUpdateUnavailable(maxUnavailable));
    await step(h, ds, 0, maxUnavailable);
    await step(h, ds, maxUnavailable, 0);
    await step(h, ds, 0, 0);
    // Act: another update while the 2 new pods are unready.
    update(h, ds, 'foo2/bar3');
    await step(h, ds, 0, maxUnavailable);
    await step(h, ds, maxUnavailable, 0);
    await step(h, ds, 0, 0);
    // Assess: the 3 ready pods of the first template are untouched.
    expect(readyNames(h).size).toBe(5 - maxUnavailable);
  });

  it('TestDaemonSetUpdatesSaveOldHealthyPods: never restarts a ready pod while unavailable pods spend the budget', async () => {
    // Prepare: 10 ready pods of the first template, 10 unready new ones.
    const { h, ds } = await launch(20, kind);
    markPodsReady(h);
    update(h, ds, 'foo2/bar2', newUpdateUnavailable(10));
    await step(h, ds, 0, 10);
    await step(h, ds, 10, 0);
    await step(h, ds, 0, 0);
    const oldReadyPods = readyNames(h);
    expect(oldReadyPods.size).toBe(10);
    // Act: upstream draws maxUnavailable = rand.Intn(10); we try every value.
    for (const [i, maxUnavailable] of [
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ].entries()) {
      update(h, ds, `foo2/bar3-${i}`, newUpdateUnavailable(maxUnavailable));
      // Only the 10 unavailable pods may be replaced.
      await step(h, ds, 0, 10);
      await step(h, ds, 10, 0);
      await step(h, ds, 0, 0);
      // Assess
      expect(readyNames(h)).toEqual(oldReadyPods);
    }
    update(h, ds, 'foo2/bar4', newUpdateUnavailable(11));
    await step(h, ds, 0, 11);
    await step(h, ds, 11, 0);
    await step(h, ds, 0, 0);
    expect(readyNames(h).size).toBe(9);
  });

  it('TestDaemonSetUpdatesAllOldNotReadyPodsAndNewNotReadyPods: replaces the unready old pods although unready new pods exhaust the budget', async () => {
    // Prepare: roll 100 nodes to the second template, 10 at a time.
    const { h, ds } = await launch(100, kind);
    markPodsReady(h);
    const hash1 = hashOf(h.cluster.pods[0] as Pod);
    const maxUnavailable = 10;
    update(h, ds, 'foo2/bar2', newUpdateUnavailable(maxUnavailable));
    for (let i = 0; i < 10; i++) {
      await step(h, ds, 0, maxUnavailable);
      await step(h, ds, maxUnavailable, 0);
      markPodsReady(h);
    }
    await step(h, ds, 0, 0);
    // 10 available old pods, 2 unavailable old pods, 88 unavailable new pods.
    const oldUnavailablePods = new Set<string>();
    for (const [i, pod] of h.cluster.pods.entries()) {
      if (i >= 10) {
        pod.status = {
          ...pod.status,
          conditions: [{ type: 'Ready', status: 'False' }],
        };
      }
      if (i < 12) {
        pod.metadata = {
          ...pod.metadata,
          labels: {
            ...pod.metadata?.labels,
            [CONTROLLER_REVISION_HASH_LABEL]: hash1,
            [TEMPLATE_GENERATION_LABEL]: '1',
          },
        };
        if (i >= 10) oldUnavailablePods.add(pod.metadata?.name ?? '');
      }
    }
    // Act / Assess
    await step(h, ds, 0, 2);
    await step(h, ds, 2, 0);
    await step(h, ds, 0, 0);
    const left = h.cluster.pods.filter((p) =>
      oldUnavailablePods.has(p.metadata?.name ?? '')
    );
    expect(left).toEqual([]);
  });

  it('TestDaemonSetUpdatesAllOldPodsNotReady: replaces every unready old pod at once, beyond maxUnavailable', async () => {
    // Prepare
    const { h, ds } = await launch(5, kind);
    update(h, ds, 'foo2/bar2', newUpdateUnavailable(3));
    // Act / Assess
    await step(h, ds, 0, 5);
    await step(h, ds, 5, 0);
    await step(h, ds, 0, 0);
  });

  it('TestDaemonSetUpdatesAllOldPodsNotReadyMaxSurge: surges onto every unready node and waits minReadySeconds before deleting', async () => {
    // Prepare
    const { h, ds } = await launch(5, kind);
    const maxSurge = 3;
    update(h, ds, 'foo2/bar2', newUpdateSurge(maxSurge));
    // Act / Assess: all old pods are unavailable, so all are surged.
    h.clock.set(100_000);
    await step(h, ds, 5, 0);
    // Waiting for pods to go ready; the old pods are deleted.
    h.clock.set(200_000);
    await step(h, ds, 0, 5);

    setPodReadiness(h, true, 5, () => true);
    updateSpec(h, ds, (s) => {
      s.minReadySeconds = 15;
    });
    update(h, ds, 'foo3/bar3');
    h.clock.set(300_000);
    await step(h, ds, maxSurge, 0);

    const hash = currentHash(h);
    const isNew = (p: Pod) => hashOf(p) === hash;
    const nodesWithNew = new Set(
      h.cluster.pods.filter(isNew).map(getTargetNodeName)
    );
    // Two updated pods turn ready at 300; one old pod on a node without an
    // updated pod turns unready.
    setPodReadiness(h, true, 2, isNew);
    setPodReadiness(
      h,
      false,
      1,
      (p) => !isNew(p) && !nodesWithNew.has(getTargetNodeName(p))
    );
    // The new pods are not available yet: only the unready old pod's node
    // gets a new pod.
    h.clock.set(310_000);
    await step(h, ds, 1, 0);
    // Two new pods are available now: their old pods and the unready old
    // pod go, and the last node surges.
    h.clock.set(320_000);
    await step(h, ds, 1, 3);
    setPodReadiness(h, true, 3, isNew);
    h.clock.set(340_000);
    await step(h, ds, 0, 2);
    // The update is complete.
    h.clock.set(350_000);
    await step(h, ds, 0, 0);
    expect(h.cluster.pods.every(isNew)).toBe(true);
    expect(h.cluster.pods).toHaveLength(5);
  });

  it('TestDaemonSetUpdatesAllOldPodsNotReadyMaxSurge: keeps old pods until the new ones are ready for exactly minReadySeconds', async () => {
    // Prepare
    const { h, ds } = await launch(2, kind);
    markPodsReady(h);
    updateSpec(h, ds, (s) => {
      s.minReadySeconds = 15;
    });
    update(h, ds, 'foo2/bar2', newUpdateSurge(2));
    h.clock.set(300_000);
    await step(h, ds, 2, 0);
    setPodReadiness(h, true, 2, (p) => hashOf(p) === currentHash(h));
    // Act / Assess: 1 ms short of minReadySeconds, nothing moves.
    h.clock.set(314_999);
    await step(h, ds, 0, 0);
    h.clock.set(315_000);
    await step(h, ds, 0, 2);
  });

  it('TestDaemonSetUpdatesNoTemplateChanged: switching to RollingUpdate alone restarts nothing', async () => {
    // Prepare
    const { h, ds } = await launch(5, kind);
    updateSpec(h, ds, (s) => {
      s.updateStrategy = newUpdateUnavailable(3);
    });
    // Act / Assess
    await step(h, ds, 0, 0);
    expect(h.cluster.revisions).toHaveLength(1);
  });
});

describe('controlledHistories (update_test.go)', () => {
  const revisionOf = (
    ds: DaemonSet,
    name: string,
    namespace: string,
    owned: boolean
  ): ControllerRevision => ({
    metadata: {
      name,
      namespace,
      uid: `${name}-uid`,
      labels: { ...ds.spec?.template.metadata?.labels },
      ...(owned ? { ownerReferences: [newControllerRef(ds)] } : {}),
    },
    revision: 1,
  });

  const run = async (h: Harness, ds: DaemonSet) =>
    controlledHistories({
      key: keyOf(ds),
      dsKey: parseDaemonSetKey(keyOf(ds)),
      ds,
      deps: h.deps,
      read: { daemonSet: ds, pods: [] },
      placement: placementOnce(ds),
    });

  it('TestControlledHistories: claims its own revision and adopts an orphan in the same namespace', async () => {
    // Prepare
    const h = newHarness();
    const ds1 = addDaemonSet(h, newDaemonSet('ds1'));
    h.cluster.revisions = [
      revisionOf(ds1, 'ds1-x1', 'default', true),
      revisionOf(ds1, 'ds1-x2', 'default', false),
    ];
    // Act
    const got = await run(h, ds1);
    // Assess
    expect(got.map((r) => r.metadata?.name)).toEqual(['ds1-x1', 'ds1-x2']);
    expect(h.cluster.revisions[1]?.metadata?.ownerReferences).toEqual([
      newControllerRef(ds1),
    ]);
  });

  it('TestControlledHistories: skips adopting a revision in another namespace', async () => {
    // Prepare
    const h = newHarness();
    const ds1 = addDaemonSet(h, newDaemonSet('ds1'));
    h.cluster.revisions = [revisionOf(ds1, 'ds1-x3', 'default-other', false)];
    // Act
    const got = await run(h, ds1);
    // Assess
    expect(got).toEqual([]);
    expect(h.cluster.revisions[0]?.metadata).not.toHaveProperty(
      'ownerReferences'
    );
  });
});
