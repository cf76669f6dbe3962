/**
 * ControllerRevision history through syncDaemonSet: constructHistory,
 * snapshot (hash collisions), dedupCurHistories, rollback renumbering and
 * cleanupHistory (pkg/controller/daemon/update.go), plus the integration
 * tests TestLaunchWithHashCollision and
 * TestDSCUpdatesPodLabelAfterDedupCurHistories adapted to fakes.
 */
import { describe, expect, it } from 'vitest';
import { computeHash, getPatch } from '#lib/reconcile/history.js';
import { newControllerRevision } from '#lib/reconcile/revision-history.js';
import type { ControllerRevision, DaemonSet } from '#lib/reconcile/types.js';
import {
  makeNodes,
  makePods,
  newDaemonSet,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';
import {
  addDaemonSet,
  clearExpectations,
  newHarness,
  stored,
  sync,
} from '../../../helpers/harness.js';
import { setImage } from '../../../helpers/rollout.js';

const hashOf = (r: ControllerRevision | undefined) =>
  r?.metadata?.labels?.['controller-revision-hash'];

describe('ControllerRevision history', () => {
  it('TestControlledHistories: adopts an orphan revision in the namespace, not one elsewhere', async () => {
    // Prepare
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('ds1'));
    const owned = newControllerRevision(ds, 'x1', 1);
    const orphan = {
      ...newControllerRevision(ds, 'x2', 2),
      metadata: {
        ...newControllerRevision(ds, 'x2', 2).metadata,
        ownerReferences: [],
      },
    };
    const elsewhere = {
      ...newControllerRevision(ds, 'x3', 3),
      metadata: {
        ...newControllerRevision(ds, 'x3', 3).metadata,
        namespace: 'other',
        ownerReferences: [],
      },
    };
    h.cluster.revisions = [owned, orphan, elsewhere];
    // Act
    const { error } = await sync(h, ds);
    // Assess
    expect(error).toBeUndefined();
    const byName = (n: string) =>
      h.cluster.revisions.find((r) => r.metadata?.name === n);
    expect(byName('ds1-x2')?.metadata?.ownerReferences?.[0]?.uid).toBe(
      ds.metadata?.uid
    );
    expect(byName('ds1-x3')?.metadata?.ownerReferences).toEqual([]);
  });

  it('creates revision 1 and reuses it on the next sync', async () => {
    // Prepare
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('foo'));
    // Act
    await sync(h, ds);
    await sync(h, ds);
    // Assess
    expect(h.cluster.revisions).toHaveLength(1);
    expect(h.cluster.revisions[0]).toMatchObject({
      revision: 1,
      metadata: { name: `foo-${computeHash(ds)}` },
    });
  });

  it('reuses a revision written by another controller (takeover restarts nothing)', async () => {
    // Prepare
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('foo'));
    h.cluster.nodes = makeNodes(0, 2);
    const upstream = newControllerRevision(ds, '7d4f9c5b8', 1);
    h.cluster.revisions = [upstream];
    h.cluster.pods = ['node-0', 'node-1'].flatMap((n) =>
      makePods(n, { ...simpleDaemonSetLabel }, ds, 1).map((p) => ({
        ...p,
        metadata: {
          ...p.metadata,
          labels: {
            ...simpleDaemonSetLabel,
            'controller-revision-hash': '7d4f9c5b8',
          },
        },
      }))
    );
    // Act
    const { error } = await sync(h, ds);
    // Assess
    expect(error).toBeUndefined();
    expect(h.cluster.revisions.map((r) => r.metadata?.name)).toEqual([
      'foo-7d4f9c5b8',
    ]);
    expect(h.cluster.created).toHaveLength(0);
    expect(h.cluster.deleted).toHaveLength(0);
    expect(stored(h, ds).status?.updatedNumberScheduled).toBe(2);
  });

  it('labels a revision without hash label with its name', async () => {
    // Prepare
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('foo'));
    const unlabelled = newControllerRevision(ds, 'abc', 1);
    delete unlabelled.metadata?.labels?.['controller-revision-hash'];
    h.cluster.revisions = [unlabelled];
    // Act
    await sync(h, ds);
    // Assess
    expect(hashOf(h.cluster.revisions[0])).toBe('foo-abc');
  });

  it('TestLaunchWithHashCollision (adapted): bumps collisionCount and uses a new name next time', async () => {
    // Prepare
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('foo'));
    h.cluster.nodes = makeNodes(0, 1);
    const squatter = newControllerRevision(ds, computeHash(ds), 1);
    squatter.data = { spec: { template: { $patch: 'replace', other: true } } };
    h.cluster.revisions = [
      {
        ...squatter,
        metadata: {
          ...squatter.metadata,
          ownerReferences: [],
          labels: { unrelated: 'x' },
        },
      },
    ];
    // Act
    const first = await sync(h, ds);
    const second = await sync(h, ds);
    // Assess
    expect(first.error?.message).toMatch(/already exists/);
    expect(stored(h, ds).status?.collisionCount).toBe(1);
    expect(second.error).toBeUndefined();
    expect(h.cluster.revisions).toHaveLength(2);
    expect(h.cluster.created).toHaveLength(1);
  });

  it('refuses to bump a stale collision count', async () => {
    // Prepare
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('foo'));
    const squatter = newControllerRevision(ds, computeHash(ds), 1);
    squatter.data = { other: true };
    h.cluster.revisions = [
      {
        ...squatter,
        metadata: { ...squatter.metadata, ownerReferences: [], labels: {} },
      },
    ];
    h.cluster.freshDaemonSet = (d) =>
      ({
        ...d,
        status: { ...(d?.status as DaemonSet['status']), collisionCount: 5 },
      }) as DaemonSet;
    // Act
    const { error } = await sync(h, ds);
    // Assess
    expect(error?.message).toMatch(/stale collision count/);
    expect(stored(h, ds).status?.collisionCount).toBeUndefined();
  });

  it('reuses a revision that appeared between list and create', async () => {
    // Prepare
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('foo'));
    const listRevisions = h.cluster.listControllerRevisions.bind(h.cluster);
    h.cluster.listControllerRevisions = async (ns: string) => {
      const listed = await listRevisions(ns);
      h.cluster.revisions.push(newControllerRevision(ds, computeHash(ds), 1));
      return listed;
    };
    // Act
    const { error } = await sync(h, ds);
    // Assess
    expect(error).toBeUndefined();
    expect(h.cluster.revisions).toHaveLength(1);
  });

  it('fails when the colliding revision vanished or the DaemonSet did', async () => {
    // Prepare
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('foo'));
    h.cluster.createRevision = async () => {
      throw new (await import('#lib/errors.js')).KubeApiError('exists', {
        reason: 'AlreadyExists',
        statusCode: 409,
      });
    };
    // Act
    const vanished = await sync(h, ds);
    h.cluster.revisions = [
      {
        ...newControllerRevision(ds, computeHash(ds), 1),
        data: { other: 1 },
        metadata: {
          name: `foo-${computeHash(ds)}`,
          namespace: 'default',
          labels: { x: 'y' },
        },
      },
    ];
    h.cluster.freshDaemonSet = () => undefined;
    const dsGone = await sync(h, ds);
    h.cluster.createRevision = async () => {
      throw new Error('boom');
    };
    const other = await sync(h, ds);
    // Assess
    expect(vanished.error?.message).toMatch(/vanished/);
    expect(dsGone.error?.message).toMatch(/vanished/);
    expect(other.error?.message).toBe('boom');
  });

  it('TestDSCUpdatesPodLabelAfterDedupCurHistories (adapted): keeps the highest duplicate and relabels pods', async () => {
    // Prepare
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('foo'));
    h.cluster.nodes = makeNodes(0, 2);
    await sync(h, ds);
    const original = h.cluster.revisions[0] as ControllerRevision;
    const duplicate = { ...newControllerRevision(ds, 'dup', 2) };
    h.cluster.revisions.push(duplicate);
    // One pod already carries the kept hash: it is not patched.
    const [first] = h.cluster.pods;
    if (first?.metadata?.labels)
      first.metadata.labels['controller-revision-hash'] = 'dup';
    await clearExpectations(h, ds);
    // Act
    const { error } = await sync(h, ds);
    // Assess
    expect(error).toBeUndefined();
    expect(h.cluster.revisions.map((r) => r.metadata?.name)).toEqual([
      'foo-dup',
    ]);
    expect(
      h.cluster.pods.map(
        (p) => p.metadata?.labels?.['controller-revision-hash']
      )
    ).toEqual(['dup', 'dup']);
    expect(h.cluster.patches).toHaveLength(1);
    expect(h.cluster.patches.every((p) => p.patch.type === 'merge')).toBe(true);
    expect(original.metadata?.name).not.toBe('foo-dup');
  });

  it('rolls back by reusing the old revision, renumbered to max+1', async () => {
    // Prepare
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('foo'));
    await sync(h, ds);
    setImage(h, ds, 'foo2/bar2');
    await sync(h, ds);
    // Act: back to the first template.
    setImage(h, ds, 'foo/bar');
    await sync(h, ds);
    // Assess
    const byRevision = [...h.cluster.revisions].sort(
      (a, b) => a.revision - b.revision
    );
    expect(byRevision).toHaveLength(2);
    expect(byRevision.at(-1)?.revision).toBe(3);
    expect(byRevision.at(-1)?.data).toEqual(
      JSON.parse(getPatch(stored(h, ds)))
    );
  });

  it('cleans up history beyond revisionHistoryLimit, oldest first, sparing live hashes', async () => {
    // Prepare
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('foo'));
    h.cluster.nodes = makeNodes(0, 1);
    await sync(h, ds); // revision 1 with a live pod (OnDelete keeps it)
    for (const image of ['b', 'c', 'd', 'e']) {
      setImage(h, ds, image);
      await clearExpectations(h, ds);
      await sync(h, ds);
    }
    // Assess: limit 2 old revisions; revision 1 stays because a pod carries it.
    const revisions = h.cluster.revisions.map((r) => r.revision).sort();
    expect(revisions).toEqual([1, 4, 5]);
  });

  it('keeps every revision without a limit set below the default', async () => {
    // Prepare
    const h = newHarness();
    const ds = newDaemonSet('foo');
    if (ds.spec) delete ds.spec.revisionHistoryLimit;
    addDaemonSet(h, ds);
    await sync(h, ds);
    // Act
    for (const image of ['b', 'c', 'd']) {
      setImage(h, ds, image);
      await sync(h, ds);
    }
    await sync(h, ds);
    // Assess
    expect(h.cluster.revisions).toHaveLength(4);
  });
});
