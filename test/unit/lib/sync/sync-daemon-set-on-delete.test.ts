/**
 * syncDaemonSet in the native OnDelete mode: the cluster's own DaemonSet
 * controller (played here by the same orchestrator in its owning mode,
 * which upstream's OnDelete strategy makes create-only) creates pods and
 * writes status; the product's sync only deletes old pods of an opted-in
 * DaemonSet, within its budget, and writes nothing else.
 */
import { describe, expect, it } from 'vitest';
import {
  LIFECYCLE_STATE_LABEL,
  PREPARING_DELETE,
} from '#lib/reconcile/advanced/rollout-controls.js';
import { EventReason } from '#lib/reconcile/events.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '#lib/reconcile/k8s/types.js';
import {
  PAUSED_ANNOTATION,
  ROLLOUT_ANNOTATION,
} from '#lib/reconcile/on-delete/rollout-annotation.js';
import {
  PODLESS_NODE_WAIT_MS,
  REVISION_WAIT_MS,
  recordedRevisionHash,
} from '#lib/sync/roll-on-delete.js';
import { syncDaemonSet } from '#lib/sync/sync-daemon-set.js';
import { makeNodes, newDaemonSet } from '../../../helpers/builders.js';
import {
  addDaemonSet,
  clearExpectations,
  type Harness,
  keyOf,
  newHarness,
  stored,
} from '../../../helpers/harness.js';
import { markPodsReady, setImage } from '../../../helpers/rollout.js';

/** The cluster's own controller: one sync, then its expectations met. */
const clusterController = async (h: Harness, ds: DaemonSet) => {
  await syncDaemonSet(keyOf(ds), h.deps);
  await clearExpectations(h, ds);
};

/** The product's sync in the OnDelete mode; returns what it wrote. */
const product = async (h: Harness, ds: DaemonSet) => {
  h.cluster.clearRecords();
  const writesBefore = {
    status: h.cluster.statusUpdates.length,
    revisions: h.cluster.revisions.length,
    events: h.events.events.length,
  };
  const result = await syncDaemonSet(keyOf(ds), {
    ...h.deps,
    rollsOnDeleteOnly: true,
  });
  const wrote = {
    creates: h.cluster.created.length,
    deletes: h.cluster.deleted.length,
    statusWrites: h.cluster.statusUpdates.length - writesBefore.status,
    revisions: h.cluster.revisions.length - writesBefore.revisions,
    events: h.events.events.slice(writesBefore.events),
    deleted: [...h.cluster.deleted],
    patches: [...h.cluster.patches],
  };
  await clearExpectations(h, ds);
  return { result, ...wrote };
};

/** Old-image pods left. */
const oldPods = (h: Harness) =>
  h.cluster.pods.filter((p) => p.spec?.containers[0]?.image === 'foo/bar')
    .length;

/** An OnDelete DaemonSet on `nodes` nodes, converged, annotated. */
const launch = async (nodes: number, controls?: object, extra = {}) => {
  const h = newHarness();
  const ds = addDaemonSet(h, newDaemonSet('agent'));
  if (controls !== undefined) {
    ds.metadata = {
      ...ds.metadata,
      annotations: {
        ...ds.metadata?.annotations,
        [ROLLOUT_ANNOTATION]: JSON.stringify(controls),
        ...extra,
      },
    };
  }
  h.cluster.nodes = makeNodes(0, nodes);
  await clusterController(h, ds);
  markPodsReady(h);
  await clusterController(h, ds);
  return { h, ds };
};

describe('syncDaemonSet (native OnDelete mode)', () => {
  it('never touches a DaemonSet that did not opt in', async () => {
    // Prepare
    const { h, ds } = await launch(3);
    setImage(h, ds, 'foo2/bar2');
    await clusterController(h, ds);
    // Act
    const wrote = await product(h, ds);
    // Assess
    expect(wrote).toMatchObject({
      creates: 0,
      deletes: 0,
      statusWrites: 0,
      revisions: 0,
      events: [],
    });
    expect(oldPods(h)).toBe(3);
  });

  it('deletes old pods within maxUnavailable and leaves the creates to the cluster', async () => {
    // Prepare
    const { h, ds } = await launch(5, { maxUnavailable: 2 });
    setImage(h, ds, 'foo2/bar2');
    await clusterController(h, ds);
    // Act / Assess: two deletes per round, the cluster's controller refills.
    const rounds: number[] = [];
    while (oldPods(h) > 0 && rounds.length < 10) {
      const wrote = await product(h, ds);
      expect(wrote).toMatchObject({
        creates: 0,
        statusWrites: 0,
        revisions: 0,
      });
      rounds.push(wrote.deletes);
      // No new deletes until the replacements are available.
      expect((await product(h, ds)).deletes).toBe(0);
      await clusterController(h, ds);
      markPodsReady(h);
    }
    expect(rounds).toEqual([2, 2, 1]);
    expect(h.cluster.pods).toHaveLength(5);
  });

  it('holds the partition’s old pods until the partition drops', async () => {
    // Prepare
    const { h, ds } = await launch(4, { maxUnavailable: 4, partition: 3 });
    setImage(h, ds, 'foo2/bar2');
    await clusterController(h, ds);
    // Act
    const first = await product(h, ds);
    await clusterController(h, ds);
    markPodsReady(h);
    const held = await product(h, ds);
    const s = stored(h, ds);
    s.metadata = {
      ...s.metadata,
      annotations: {
        ...s.metadata?.annotations,
        [ROLLOUT_ANNOTATION]: '{"maxUnavailable": 4}',
      },
    };
    const released = await product(h, ds);
    // Assess
    expect(first.deletes).toBe(1);
    expect(held.deletes).toBe(0);
    expect(oldPods(h)).toBe(0 + 3 - released.deletes);
    expect(released.deletes).toBe(3);
  });

  it('deletes nothing while paused by the rollout-paused annotation', async () => {
    // Prepare
    const { h, ds } = await launch(3, {}, { [PAUSED_ANNOTATION]: 'true' });
    setImage(h, ds, 'foo2/bar2');
    await clusterController(h, ds);
    // Act
    const wrote = await product(h, ds);
    // Assess
    expect(wrote.deletes).toBe(0);
    expect(oldPods(h)).toBe(3);
  });

  it('deletes nothing while the DaemonSet is being deleted', async () => {
    // Prepare
    const { h, ds } = await launch(3, { maxUnavailable: 3 });
    setImage(h, ds, 'foo2/bar2');
    await clusterController(h, ds);
    const s = stored(h, ds);
    s.metadata = { ...s.metadata, deletionTimestamp: '2026-12-02T00:00:00Z' };
    // Act
    const wrote = await product(h, ds);
    // Assess
    expect(wrote.deletes).toBe(0);
    expect(oldPods(h)).toBe(3);
  });

  it('waits for the cluster’s controller to record the new revision', async () => {
    // Prepare: the template changed, the cluster's controller has not synced.
    const { h, ds } = await launch(3, { maxUnavailable: 3 });
    setImage(h, ds, 'foo2/bar2');
    // Act
    const wrote = await product(h, ds);
    // Assess
    expect(wrote.deletes).toBe(0);
    expect(wrote.result.requeueAfterMs).toBe(REVISION_WAIT_MS);
  });

  it('refuses an annotation it cannot follow with a Warning, deleting nothing', async () => {
    // Prepare
    const { h, ds } = await launch(3, { maxSurge: 1 });
    setImage(h, ds, 'foo2/bar2');
    await clusterController(h, ds);
    // Act
    const wrote = await product(h, ds);
    // Assess
    expect(wrote.deletes).toBe(0);
    expect(wrote.events).toEqual([
      expect.objectContaining({
        type: 'Warning',
        reason: EventReason.InvalidRollout,
        message: expect.stringContaining(
          'maxSurge cannot work in the OnDelete mode'
        ),
      }),
    ]);
  });

  it('holds a hooked pod behind its preDelete hook, then deletes it once released', async () => {
    // Prepare
    const { h, ds } = await launch(2, {
      maxUnavailable: 1,
      preDelete: { labelsHandler: { hold: 'yes' } },
    });
    for (const pod of h.cluster.pods) {
      pod.metadata = {
        ...pod.metadata,
        labels: { ...pod.metadata?.labels, hold: 'yes' },
      };
    }
    setImage(h, ds, 'foo2/bar2');
    await clusterController(h, ds);
    // Act
    const marked = await product(h, ds);
    const stillHeld = await product(h, ds);
    const [pod] = h.cluster.pods.filter(
      (p) => p.metadata?.labels?.[LIFECYCLE_STATE_LABEL] === PREPARING_DELETE
    );
    delete pod?.metadata?.labels?.hold;
    const released = await product(h, ds);
    // Assess: one pod at a time is marked, none deleted while hooked.
    expect(marked.deletes).toBe(0);
    expect(marked.patches).toHaveLength(1);
    expect(stillHeld.deletes).toBe(0);
    expect(released.deleted).toEqual([pod?.metadata?.name]);
    expect(
      h.cluster.pods.every(
        (p) =>
          p.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] !== undefined
      )
    ).toBe(true);
  });

  it('takes the highest-numbered of several revisions that match the template', async () => {
    // Prepare: a revision the cluster's controller renumbered on a rollback.
    const { h, ds } = await launch(2, {});
    const [rev] = h.cluster.revisions;
    const older = structuredClone(rev);
    if (rev && older?.metadata) {
      older.metadata = {
        ...older.metadata,
        name: 'older',
        labels: {
          ...older.metadata.labels,
          [CONTROLLER_REVISION_HASH_LABEL]: 'older',
        },
      };
      older.revision = rev.revision - 1;
      h.cluster.revisions.push(older);
    }
    // Act
    const hash = recordedRevisionHash(
      { ds: stored(h, ds) } as Parameters<typeof recordedRevisionHash>[0],
      h.cluster.revisions
    );
    // Assess
    expect(hash).toBe(rev?.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL]);
  });

  it('deletes nothing while its earlier deletes are not yet observed', async () => {
    // Prepare
    const { h, ds } = await launch(3, { maxUnavailable: 3 });
    setImage(h, ds, 'foo2/bar2');
    await clusterController(h, ds);
    await h.expectations.setExpectations(keyOf(ds), 0, 1);
    // Act
    const result = await syncDaemonSet(keyOf(ds), {
      ...h.deps,
      rollsOnDeleteOnly: true,
    });
    // Assess
    expect(h.cluster.deleted).toEqual([]);
    expect(result.requeueAfterMs).toBeUndefined();
  });

  it('looks again while nodes it counts as unavailable have no pod (campaign seed 9223)', async () => {
    // Prepare: two nodes the cache still lists, gone from the cluster, take
    // the whole budget; nothing else would ever wake the key.
    const { h, ds } = await launch(3, { maxUnavailable: 2 });
    setImage(h, ds, 'foo2/bar2');
    await clusterController(h, ds);
    h.cluster.nodes = [...h.cluster.nodes, ...makeNodes(3, 2)];
    // Act
    const wrote = await product(h, ds);
    // Assess
    expect(wrote.deletes).toBe(0);
    expect(wrote.result.requeueAfterMs).toBe(PODLESS_NODE_WAIT_MS);
  });
});
