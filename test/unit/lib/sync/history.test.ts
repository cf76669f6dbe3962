/**
 * ControllerRevision history through syncDaemonSet (lib/sync/
 * history.ts): upstream `constructHistory`, `snapshot`,
 * `dedupCurHistories` and `cleanupHistory` (pkg/controller/daemon/update.go),
 * with the integration tests TestLaunchWithHashCollision and
 * TestDSCUpdatesPodLabelAfterDedupCurHistories
 * (test/integration/daemonset/daemonset_test.go) adapted to the fakes: the
 * test plays the API server's part by writing objects into the fake cluster.
 */
import { describe, expect, it } from 'vitest';
import { KubeApiError } from '#lib/errors.js';
import type {
  ControllerRevision,
  DaemonSet,
  Pod,
} from '#lib/reconcile/k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '#lib/reconcile/k8s/types.js';
import { computeHash, getPatch } from '#lib/reconcile/revision-hash.js';
import { newControllerRevision } from '#lib/reconcile/revision-history.js';
import {
  makeNodes,
  makePods,
  markPodDeleting,
  markPodReady,
  newDaemonSet,
  setTemplate,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';
import {
  addDaemonSet,
  clearExpectations,
  expectSync,
  type Harness,
  newHarness,
  stored,
  sync,
} from '../../../helpers/harness.js';
import {
  markPodsReady,
  newUpdateUnavailable,
  setImage,
} from '../../../helpers/rollout.js';

const hashOf = (obj: Pod | ControllerRevision | undefined): string =>
  obj?.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';

const byRevision = (h: Harness) =>
  [...h.cluster.revisions]
    .sort((a, b) => a.revision - b.revision)
    .map((r) => ({ name: r.metadata?.name, revision: r.revision }));

/** One node, DaemonSet foo with RollingUpdate maxUnavailable 1, synced once. */
const launchRollingUpdate = async (nodes = 1) => {
  const h = newHarness();
  const ds = newDaemonSet('foo');
  if (ds.spec) ds.spec.updateStrategy = newUpdateUnavailable(1);
  addDaemonSet(h, ds);
  h.cluster.nodes = makeNodes(0, nodes);
  await expectSync(h, ds, { creates: nodes, deletes: 0, events: 0 });
  markPodsReady(h);
  await clearExpectations(h, ds);
  return { h, ds };
};

/** The revision the "user" writes: `data` from `dataOf`, named after `nameOf`. */
const foreignRevision = (
  nameOf: DaemonSet,
  dataOf: DaemonSet,
  revision: number
): ControllerRevision => ({
  ...newControllerRevision(nameOf, computeHash(nameOf), revision),
  data: JSON.parse(getPatch(dataOf)),
});

/** The stored DaemonSet with terminationGracePeriodSeconds 1 (a new template). */
const withGracePeriodOne = (ds: DaemonSet): DaemonSet => {
  const next = structuredClone(ds);
  setTemplate(next, (t) => {
    if (t.spec) t.spec.terminationGracePeriodSeconds = 1;
  });
  return next;
};

describe('syncDaemonSet ControllerRevision history', () => {
  it('TestLaunchWithHashCollision (adapted): bumps collisionCount once, then rolls out under a new name', async () => {
    // Prepare: a revision already holds the next template's name with other data.
    const { h, ds } = await launchRollingUpdate();
    const [first] = h.cluster.revisions;
    const next = withGracePeriodOne(stored(h, ds));
    const squatter = foreignRevision(next, ds, (first?.revision ?? 0) + 1);
    h.cluster.revisions.push(squatter);
    setTemplate(stored(h, ds), (t) => {
      if (t.spec) t.spec.terminationGracePeriodSeconds = 1;
    });
    // Act
    const collided = await sync(h, ds);
    const retried = await expectSync(h, ds, {
      creates: 0,
      deletes: 1,
      events: 0,
    });
    await clearExpectations(h, ds);
    await expectSync(h, ds, { creates: 1, deletes: 0, events: 0 });
    // Assess
    expect(collided.error).toBeInstanceOf(KubeApiError);
    expect(collided.error?.message).toMatch(/already exists/);
    expect(retried.error).toBeUndefined();
    expect(stored(h, ds).status?.collisionCount).toBe(1);
    const current = h.cluster.revisions.find(
      (r) => r.metadata?.name !== first?.metadata?.name && r !== squatter
    );
    expect(current?.metadata?.name).not.toBe(squatter.metadata?.name);
    expect(current?.revision).toBe(3);
    expect(h.cluster.revisions).toContainEqual(squatter);
    const [pod] = h.cluster.pods;
    expect(pod?.spec?.terminationGracePeriodSeconds).toBe(1);
    expect(hashOf(pod)).toBe(hashOf(current));
  });

  it('TestLaunchWithHashCollision (adapted): a stale collision count fails the sync without a bump', async () => {
    // Prepare
    const { h, ds } = await launchRollingUpdate();
    const next = withGracePeriodOne(stored(h, ds));
    h.cluster.revisions.push(foreignRevision(next, ds, 2));
    setTemplate(stored(h, ds), (t) => {
      if (t.spec) t.spec.terminationGracePeriodSeconds = 1;
    });
    h.cluster.freshDaemonSet = (d) => {
      if (d?.status) d.status.collisionCount = 4;
      return d;
    };
    const writesBefore = h.cluster.statusUpdates.length;
    // Act
    const { error } = await sync(h, ds);
    // Assess
    expect(error?.message).toMatch(
      /found a stale collision count \(undefined, expected 4\)/
    );
    expect(h.cluster.statusUpdates).toHaveLength(writesBefore);
    expect(stored(h, ds).status?.collisionCount).toBeUndefined();
  });

  it('TestLaunchWithHashCollision (adapted): fails when the DaemonSet vanished during the collision check', async () => {
    // Prepare
    const { h, ds } = await launchRollingUpdate();
    const next = withGracePeriodOne(stored(h, ds));
    h.cluster.revisions.push(foreignRevision(next, ds, 2));
    setTemplate(stored(h, ds), (t) => {
      if (t.spec) t.spec.terminationGracePeriodSeconds = 1;
    });
    h.cluster.freshDaemonSet = () => undefined;
    // Act
    const { error } = await sync(h, ds);
    // Assess
    expect(error?.message).toBe('DaemonSet default/foo vanished');
  });

  it('reuses a revision that appeared between list and create (snapshot AlreadyExists + Match)', async () => {
    // Prepare: same name and data, but invisible to the claim (not ours,
    // labels outside the selector).
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('foo'));
    h.cluster.nodes = makeNodes(0, 1);
    const racing = newControllerRevision(ds, computeHash(ds), 7);
    racing.metadata = { ...racing.metadata, labels: {}, ownerReferences: [] };
    h.cluster.revisions.push(racing);
    // Act
    const { error } = await sync(h, ds);
    // Assess
    expect(error).toBeUndefined();
    expect(h.cluster.revisions).toEqual([racing]);
    expect(h.cluster.pods).toHaveLength(1);
  });

  it('fails when the colliding revision vanished before it could be read', async () => {
    // Prepare
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('foo'));
    h.deps = {
      ...h.deps,
      revisionControl: {
        ...h.deps.revisionControl,
        createRevision: async () => {
          throw new KubeApiError('exists', {
            reason: 'AlreadyExists',
            statusCode: 409,
          });
        },
      },
    };
    // Act
    const { error } = await sync(h, ds);
    // Assess
    expect(error?.message).toBe(
      `revision default/foo-${computeHash(ds)} vanished`
    );
    expect(error?.cause).toBeInstanceOf(KubeApiError);
  });

  it('passes on a revision create failure other than AlreadyExists', async () => {
    // Prepare
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('foo'));
    const forbidden = new KubeApiError('forbidden', {
      reason: 'Forbidden',
      statusCode: 403,
    });
    h.deps = {
      ...h.deps,
      revisionControl: {
        ...h.deps.revisionControl,
        createRevision: async () => {
          throw forbidden;
        },
      },
    };
    // Act
    const { error } = await sync(h, ds);
    // Assess
    expect(error).toBe(forbidden);
  });

  it('TestDSCUpdatesPodLabelAfterDedupCurHistories (adapted): relabels pods to the highest duplicate and deletes the other', async () => {
    // Prepare: a second revision with the same data and a higher revision.
    const { h, ds } = await launchRollingUpdate();
    const [original] = h.cluster.revisions;
    const duplicate = foreignRevision(
      withGracePeriodOne(stored(h, ds)),
      ds,
      (original?.revision ?? 0) + 1
    );
    const newHash = hashOf(duplicate);
    h.cluster.revisions.push(duplicate);
    // A second node makes the controller sync, as upstream does.
    h.cluster.nodes = makeNodes(0, 2);
    // Act
    await expectSync(h, ds, { creates: 1, deletes: 0, events: 0 });
    // Assess
    expect(h.cluster.pods.map(hashOf)).toEqual([newHash, newHash]);
    expect(h.cluster.revisions.map((r) => r.metadata?.name)).toEqual([
      duplicate.metadata?.name,
    ]);
    expect(h.cluster.revisions[0]?.revision).toBe(2);
  });

  it('TestDSCUpdatesPodLabelAfterDedupCurHistories (adapted): sends a JSON merge patch only to pods with another hash', async () => {
    // Prepare: a dedup that was interrupted after relabelling one pod.
    const { h, ds } = await launchRollingUpdate(2);
    const duplicate = foreignRevision(withGracePeriodOne(stored(h, ds)), ds, 2);
    const newHash = hashOf(duplicate);
    h.cluster.revisions.push(duplicate);
    const [relabelled, pending] = h.cluster.pods;
    if (relabelled?.metadata) {
      relabelled.metadata.labels = {
        ...relabelled.metadata.labels,
        [CONTROLLER_REVISION_HASH_LABEL]: newHash,
      };
    }
    // Act
    await sync(h, ds);
    // Assess
    expect(h.cluster.patches).toEqual([
      {
        name: pending?.metadata?.name,
        patch: {
          type: 'merge',
          body: `{"metadata":{"labels":{"controller-revision-hash":"${newHash}"}}}`,
        },
      },
    ]);
  });

  it('rolls back by reusing the old revision, renumbered to max+1, without a new revision', async () => {
    // Prepare: revision 1 (foo/bar), revision 2 (foo2/bar2).
    const { h, ds } = await launchRollingUpdate();
    const [first] = h.cluster.revisions;
    setImage(h, ds, 'foo2/bar2');
    await sync(h, ds);
    await clearExpectations(h, ds);
    const second = h.cluster.revisions.find((r) => r !== first);
    // Act: back to foo/bar.
    setImage(h, ds, 'foo/bar');
    await sync(h, ds);
    // Assess
    expect(byRevision(h)).toEqual([
      { name: second?.metadata?.name, revision: 2 },
      { name: first?.metadata?.name, revision: 3 },
    ]);
  });

  it('labels a claimed revision without hash label with its name and uses that as the hash', async () => {
    // Prepare
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('foo'));
    h.cluster.nodes = makeNodes(0, 2);
    const unlabelled: ControllerRevision = {
      ...newControllerRevision(ds, 'ignored', 1),
      metadata: {
        ...newControllerRevision(ds, 'ignored', 1).metadata,
        name: 'foo-custom',
        labels: { ...simpleDaemonSetLabel },
      },
    };
    h.cluster.revisions.push(unlabelled);
    // Act
    await expectSync(h, ds, { creates: 2, deletes: 0, events: 0 });
    // Assess
    expect(h.cluster.revisions).toHaveLength(1);
    expect(hashOf(h.cluster.revisions[0])).toBe('foo-custom');
    expect(h.cluster.pods.map(hashOf)).toEqual(['foo-custom', 'foo-custom']);
  });

  it('takes over a revision written by kube-controller-manager and restarts no pod', async () => {
    // Prepare: upstream's revision (its own hash) and its pods, all ready.
    const h = newHarness();
    const ds = newDaemonSet('foo');
    if (ds.spec) ds.spec.updateStrategy = newUpdateUnavailable(1);
    addDaemonSet(h, ds);
    h.cluster.nodes = makeNodes(0, 3);
    const upstreamHash = '5d4f8b9c7';
    h.cluster.revisions.push(newControllerRevision(ds, upstreamHash, 1));
    h.cluster.pods = [0, 1, 2].flatMap((i) =>
      makePods(`node-${i}`, simpleDaemonSetLabel, ds, 1).map((p) => {
        p.metadata = {
          ...p.metadata,
          labels: {
            ...p.metadata?.labels,
            [CONTROLLER_REVISION_HASH_LABEL]: upstreamHash,
          },
        };
        return markPodReady(p, h.clock.now());
      })
    );
    // Act
    await expectSync(h, ds, { creates: 0, deletes: 0, events: 0 });
    // Assess
    expect(h.cluster.revisions).toHaveLength(1);
    expect(h.cluster.revisions[0]?.metadata?.name).toBe(`foo-${upstreamHash}`);
    expect(h.cluster.patches).toEqual([]);
    expect(stored(h, ds).status?.updatedNumberScheduled).toBe(3);
  });

  it('OnDelete: creates revision 2 on a template change and replaces no pod (spec §1.13)', async () => {
    // Prepare
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('foo'));
    h.cluster.nodes = makeNodes(0, 2);
    await expectSync(h, ds, { creates: 2, deletes: 0, events: 0 });
    markPodsReady(h);
    const firstHash = hashOf(h.cluster.revisions[0]);
    // Act
    setImage(h, ds, 'foo2/bar2');
    await clearExpectations(h, ds);
    await expectSync(h, ds, { creates: 0, deletes: 0, events: 0 });
    // Assess
    expect(byRevision(h).map((r) => r.revision)).toEqual([1, 2]);
    expect(h.cluster.pods.map(hashOf)).toEqual([firstHash, firstHash]);
    expect(stored(h, ds).status?.updatedNumberScheduled).toBe(0);
  });

  it('cleanupHistory: keeps revisionHistoryLimit old revisions and never one a live pod carries', async () => {
    // Prepare: OnDelete, so the pods keep revision 1's hash throughout.
    const h = newHarness();
    const ds = newDaemonSet('foo');
    if (ds.spec) ds.spec.revisionHistoryLimit = 1;
    addDaemonSet(h, ds);
    h.cluster.nodes = makeNodes(0, 1);
    await expectSync(h, ds, { creates: 1, deletes: 0, events: 0 });
    const [first] = h.cluster.revisions;
    // Act: three template changes.
    for (const image of ['foo/v2', 'foo/v3', 'foo/v4']) {
      setImage(h, ds, image);
      await clearExpectations(h, ds);
      const { error } = await sync(h, ds);
      expect(error).toBeUndefined();
    }
    // Assess: revision 1 (live) and the current one survive.
    expect(byRevision(h)).toEqual([
      { name: first?.metadata?.name, revision: 1 },
      { name: expect.any(String), revision: 4 },
    ]);
  });

  it('cleanupHistory: spares the revision of a terminal pod that is being deleted', async () => {
    // Prepare
    const h = newHarness();
    const ds = newDaemonSet('foo');
    if (ds.spec) ds.spec.revisionHistoryLimit = 0;
    addDaemonSet(h, ds);
    h.cluster.nodes = makeNodes(0, 1);
    await expectSync(h, ds, { creates: 1, deletes: 0, events: 0 });
    const [first] = h.cluster.revisions;
    for (const pod of h.cluster.pods) {
      pod.status = { phase: 'Failed' };
      markPodDeleting(pod, h.clock.now());
    }
    setImage(h, ds, 'foo/v2');
    await clearExpectations(h, ds);
    // Act
    await sync(h, ds);
    // Assess
    expect(byRevision(h).map((r) => r.name)).toContain(first?.metadata?.name);
    expect(h.cluster.revisions).toHaveLength(2);
  });
});
