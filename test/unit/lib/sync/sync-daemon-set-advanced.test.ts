/**
 * syncDaemonSet for the own kind: the same orchestrator, with Kruise's
 * rollout controls carried by the object (spec/kruise-ads.md §2.4–§2.6,
 * §2.11): `paused` stops only the update pass, a partition holds nodes on
 * the old revision, `burstReplicas` caps each sync, and partitionedScaling
 * gates creation.
 */
import { describe, expect, it } from 'vitest';
import { INPLACE_UPDATE_READY } from '#lib/reconcile/advanced/in-place-update.js';
import { KRUISE_POD_READY } from '#lib/reconcile/advanced/pod-readiness.js';
import {
  LIFECYCLE_STATE_LABEL,
  PREPARING_DELETE,
} from '#lib/reconcile/advanced/rollout-controls.js';
import { ADVANCED_DAEMON_SET } from '#lib/reconcile/k8s/daemon-set-kind.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '#lib/reconcile/k8s/types.js';
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
  newHarness,
  stored,
  sync,
} from '../../../helpers/harness.js';
import {
  markPodsReady,
  setImage,
  updateSpec,
} from '../../../helpers/rollout.js';

/** An own-kind DaemonSet with maxUnavailable 3 and the given controls. */
const advancedDaemonSet = (controls: {
  paused?: boolean;
  partition?: number | string;
  burstReplicas?: number | string;
  partitionedScaling?: boolean;
}): DaemonSet => {
  const ds = newDaemonSet('ads');
  if (ds.spec) {
    ds.spec.updateStrategy = {
      type: 'RollingUpdate',
      rollingUpdate: {
        maxUnavailable: 3,
        ...(controls.paused !== undefined ? { paused: controls.paused } : {}),
        ...(controls.partition !== undefined
          ? { partition: controls.partition }
          : {}),
      },
    };
    if (controls.burstReplicas !== undefined) {
      ds.spec.burstReplicas = controls.burstReplicas;
    }
    if (controls.partitionedScaling) {
      ds.spec.scaleStrategy = { partitionedScaling: true };
    }
  }
  return ds;
};

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

const launch = async (ds: DaemonSet, nodes: number) => {
  const h = newHarness();
  addDaemonSet(h, ds);
  h.cluster.nodes = makeNodes(0, nodes);
  await step(h, ds, nodes, 0);
  markPodsReady(h);
  return h;
};

describe('syncDaemonSet (own kind)', () => {
  describe('when paused', () => {
    it('does not roll a template change out, but still places pods on new nodes', async () => {
      // Prepare
      const ds = advancedDaemonSet({ paused: true });
      const h = await launch(ds, 3);
      setImage(h, ds, 'foo2/bar2');
      h.cluster.nodes = makeNodes(0, 4);
      // Act / Assess: the new node gets a pod, no old pod goes.
      await step(h, ds, 1, 0);
      await step(h, ds, 0, 0);
    });

    it('rolls out once resumed', async () => {
      // Prepare
      const ds = advancedDaemonSet({ paused: true });
      const h = await launch(ds, 3);
      setImage(h, ds, 'foo2/bar2');
      await step(h, ds, 0, 0);
      // Act
      updateSpec(h, ds, (s) => {
        const rollingUpdate = s.updateStrategy?.rollingUpdate;
        if (rollingUpdate) rollingUpdate.paused = false;
      });
      // Assess
      await step(h, ds, 0, 3);
    });
  });

  describe('with a partition', () => {
    it('stops the rollout at the partition and goes on when it is lowered', async () => {
      // Prepare
      const ds = advancedDaemonSet({ partition: 2 });
      const h = await launch(ds, 4);
      setImage(h, ds, 'foo2/bar2');
      // Act / Assess: two nodes update, two stay.
      await step(h, ds, 0, 2);
      await step(h, ds, 2, 0);
      markPodsReady(h);
      await step(h, ds, 0, 0);
      updateSpec(h, ds, (s) => {
        const rollingUpdate = s.updateStrategy?.rollingUpdate;
        if (rollingUpdate) rollingUpdate.partition = 0;
      });
      await step(h, ds, 0, 2);
    });
  });

  describe('with burstReplicas', () => {
    it('creates at most burstReplicas pods per sync', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, advancedDaemonSet({ burstReplicas: 2 }));
      h.cluster.nodes = makeNodes(0, 5);
      // Act / Assess
      await step(h, ds, 2, 0);
      await step(h, ds, 2, 0);
      await step(h, ds, 1, 0);
    });

    it('scales a percentage against the nodes that should run a pod', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, advancedDaemonSet({ burstReplicas: '50%' }));
      h.cluster.nodes = makeNodes(0, 4);
      // Act / Assess: Kruise would create nothing before a status exists.
      await step(h, ds, 2, 0);
    });
  });

  describe('with partitionedScaling', () => {
    it('creates pods only up to the partition', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(
        h,
        advancedDaemonSet({ partition: 3, partitionedScaling: true })
      );
      h.cluster.nodes = makeNodes(0, 5);
      // Act / Assess
      await step(h, ds, 2, 0);
      await step(h, ds, 0, 0);
    });
  });

  describe('status and ownership', () => {
    it('writes updateRevision, owns its pods as AdvancedDaemonSet, and skips an unchanged status', async () => {
      // Prepare
      const h = newHarness();
      const ds = advancedDaemonSet({});
      ds.apiVersion = ADVANCED_DAEMON_SET.apiVersion;
      ds.kind = ADVANCED_DAEMON_SET.kind;
      addDaemonSet(h, ds);
      h.cluster.nodes = makeNodes(0, 2);
      // Act
      await step(h, ds, 2, 0);
      markPodsReady(h);
      await step(h, ds, 0, 0);
      const writes = h.cluster.statusUpdates.length;
      await step(h, ds, 0, 0);
      // Assess
      const [revision] = h.cluster.revisions;
      const hash = revision?.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
      expect(stored(h, ds).status?.updateRevision).toBe(hash);
      expect(h.cluster.statusUpdates).toHaveLength(writes);
      for (const pod of h.cluster.pods) {
        expect(pod.metadata?.ownerReferences?.[0]).toMatchObject({
          apiVersion: 'apps.dsr.dev/v1beta1',
          kind: 'AdvancedDaemonSet',
        });
      }
    });

    it('writes no updateRevision for an apps/v1 DaemonSet', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('native'));
      h.cluster.nodes = makeNodes(0, 1);
      // Act
      await step(h, ds, 1, 0);
      // Assess
      expect(stored(h, ds).status).not.toHaveProperty('updateRevision');
    });
  });

  describe('with NotReady nodes (Kruise daemonset_node_filter_test.go)', () => {
    it('TestDaemonSetIgnoreNotReadyNodesWhenUpdating: node readiness does not hold the rollout back', async () => {
      // Prepare: 3 nodes NotReady, every pod Ready, maxUnavailable 2.
      const ds = advancedDaemonSet({});
      ds.apiVersion = ADVANCED_DAEMON_SET.apiVersion;
      ds.kind = ADVANCED_DAEMON_SET.kind;
      const rollingUpdate = ds.spec?.updateStrategy?.rollingUpdate;
      if (rollingUpdate) rollingUpdate.maxUnavailable = 2;
      const h = await launch(ds, 3);
      for (const node of h.cluster.nodes) {
        node.status = {
          conditions: [{ type: 'Ready', status: 'False' }],
        };
      }
      setImage(h, ds, 'foo2/bar2');
      // Act / Assess: delete 2, then create 2.
      await step(h, ds, 0, 2);
      await step(h, ds, 2, 0);
    });
  });

  describe('with a preDelete hook', () => {
    const HOOK = { 'example.com/hook': 'true' };

    /** An own-kind DaemonSet whose pods carry the hook's label. */
    const hooked = (): DaemonSet => {
      const ds = advancedDaemonSet({});
      ds.apiVersion = ADVANCED_DAEMON_SET.apiVersion;
      ds.kind = ADVANCED_DAEMON_SET.kind;
      if (ds.spec) {
        const rollingUpdate = ds.spec.updateStrategy?.rollingUpdate;
        if (rollingUpdate) rollingUpdate.maxUnavailable = 1;
        ds.spec.lifecycle = { preDelete: { labelsHandler: HOOK } };
        ds.spec.template.metadata = {
          ...ds.spec.template.metadata,
          labels: { ...ds.spec.template.metadata?.labels, ...HOOK },
        };
      }
      return ds;
    };

    const preparing = (h: Harness) =>
      h.cluster.pods.filter(
        (p) => p.metadata?.labels?.[LIFECYCLE_STATE_LABEL] === PREPARING_DELETE
      );

    it('marks one pod PreparingDelete, holds the rollout there, and goes on once the hook lets go', async () => {
      // Prepare
      const ds = hooked();
      const h = await launch(ds, 3);
      setImage(h, ds, 'foo2/bar2');
      // Act / Assess: one pod held, nothing deleted, and it stays so.
      await step(h, ds, 0, 0);
      expect(preparing(h)).toHaveLength(1);
      await step(h, ds, 0, 0);
      expect(h.cluster.patches).toHaveLength(0);
      // The user's controller releases the pod: it goes, a new one comes.
      const [held] = preparing(h);
      delete held?.metadata?.labels?.['example.com/hook'];
      await step(h, ds, 0, 1);
      await step(h, ds, 1, 0);
      markPodsReady(h);
      await step(h, ds, 0, 0);
      expect(preparing(h)).toHaveLength(1);
    });

    it('with markPodNotReady: gates new pods, marks them ready, and takes a held pod out of service before marking it', async () => {
      // Prepare
      const ds = hooked();
      const preDelete = ds.spec?.lifecycle?.preDelete;
      if (preDelete) preDelete.markPodNotReady = true;
      const h = await launch(ds, 2);
      // Assess: every pod carries the gate, and the next sync sets it True.
      for (const pod of h.cluster.pods) {
        expect(pod.spec?.readinessGates).toEqual([
          { conditionType: KRUISE_POD_READY },
        ]);
      }
      await step(h, ds, 0, 0);
      for (const pod of h.cluster.pods) {
        expect(
          pod.status?.conditions?.find((c) => c.type === KRUISE_POD_READY)
            ?.status
        ).toBe('True');
      }
      // Act: a rollout holds one pod (whose containers are ready).
      for (const pod of h.cluster.pods) {
        pod.status?.conditions?.push({
          type: 'ContainersReady',
          status: 'True',
        });
      }
      setImage(h, ds, 'foo2/bar2');
      await step(h, ds, 0, 0);
      // Assess: out of service (status) and PreparingDelete (label).
      const [held, ...others] = preparing(h);
      expect(others).toEqual([]);
      const conditions = held?.status?.conditions ?? [];
      expect(conditions.find((c) => c.type === KRUISE_POD_READY)).toMatchObject(
        {
          status: 'False',
          message: '[{"userAgent":"Lifecycle","key":"preDeleteHook"}]',
        }
      );
      expect(conditions.find((c) => c.type === 'Ready')?.status).toBe('False');
      // Assess: a held pod is not written again.
      await clearExpectations(h, ds);
      await sync(h, ds);
      expect(h.cluster.statusPatches).toEqual([]);
      expect(h.cluster.patches).toEqual([]);
    });

    it('reports a failed mark as a sync error and deletes nothing held', async () => {
      // Prepare
      const ds = hooked();
      const h = await launch(ds, 2);
      setImage(h, ds, 'foo2/bar2');
      h.cluster.patchError = new Error('patch refused');
      // Act
      await clearExpectations(h, ds);
      const { error } = await sync(h, ds);
      // Assess
      expect(error?.message).toContain('patch refused');
      expect(h.cluster.deleted).toEqual([]);
    });

    it('deletes held pods of an apps/v1 DaemonSet like any other (no lifecycle there)', async () => {
      // Prepare: a native DaemonSet whose pod someone labelled PreparingDelete.
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('native'));
      h.cluster.nodes = makeNodes(0, 1);
      await step(h, ds, 1, 0);
      const [pod] = h.cluster.pods;
      if (pod?.metadata?.labels) {
        pod.metadata.labels[LIFECYCLE_STATE_LABEL] = PREPARING_DELETE;
      }
      // Act / Assess: upstream keeps it; nothing happens.
      await step(h, ds, 0, 0);
    });
  });

  describe('with rollingUpdateType InPlaceIfPossible', () => {
    /** An own-kind DaemonSet that updates images in place, one node at a time. */
    const inPlace = (): DaemonSet => {
      const ds = advancedDaemonSet({});
      ds.apiVersion = ADVANCED_DAEMON_SET.apiVersion;
      ds.kind = ADVANCED_DAEMON_SET.kind;
      const rollingUpdate = ds.spec?.updateStrategy?.rollingUpdate;
      if (rollingUpdate) {
        rollingUpdate.maxUnavailable = 1;
        rollingUpdate.rollingUpdateType = 'InPlaceIfPossible';
      }
      return ds;
    };

    /** Plays the kubelet: the patched image was pulled (a new imageID). */
    const pulled = (h: Harness) => {
      for (const pod of h.cluster.pods) {
        const status = pod.status ?? {};
        pod.status = status;
        status.containerStatuses = (pod.spec?.containers ?? []).map((c) => ({
          name: c.name,
          image: c.image ?? '',
          imageID: `pulled://${c.image}`,
          ready: true,
          restartCount: 0,
        }));
      }
    };

    const conditionOf = (h: Harness, name: string | undefined) =>
      h.cluster.pods
        .find((p) => p.metadata?.name === name)
        ?.status?.conditions?.find((c) => c.type === INPLACE_UPDATE_READY)
        ?.status;

    it('creates pods with the readiness gate, then marks them ready for service', async () => {
      // Prepare / Act
      const ds = inPlace();
      const h = await launch(ds, 2);
      await step(h, ds, 0, 0);
      // Assess
      for (const pod of h.cluster.pods) {
        expect(pod.spec?.readinessGates).toEqual([
          { conditionType: INPLACE_UPDATE_READY },
        ]);
        expect(conditionOf(h, pod.metadata?.name)).toBe('True');
      }
    });

    it('updates an image change in place, one pod at a time, keeping every pod', async () => {
      // Prepare
      const ds = inPlace();
      const h = await launch(ds, 2);
      await step(h, ds, 0, 0);
      const names = h.cluster.pods.map((p) => p.metadata?.name).sort();
      setImage(h, ds, 'foo2/bar2');
      // Act: the first pod is patched, not deleted.
      await clearExpectations(h, ds);
      await expectSync(h, ds, { creates: 0, deletes: 0, events: 1 });
      const first = h.cluster.pods.find(
        (p) => p.spec?.containers[0]?.image === 'foo2/bar2'
      );
      const stalled = h.cluster.pods.filter(
        (p) => p.spec?.containers[0]?.image === 'foo2/bar2'
      ).length;
      // Nothing more until the kubelet reports the new image.
      await step(h, ds, 0, 0);
      pulled(h);
      await step(h, ds, 0, 0);
      const firstReady = conditionOf(h, first?.metadata?.name);
      await clearExpectations(h, ds);
      await expectSync(h, ds, { creates: 0, deletes: 0, events: 1 });
      pulled(h);
      await step(h, ds, 0, 0);
      // Assess
      expect(stalled).toBe(1);
      expect(firstReady).toBe('True');
      expect(h.cluster.pods.map((p) => p.metadata?.name).sort()).toEqual(names);
      expect(h.cluster.pods.map((p) => p.spec?.containers[0]?.image)).toEqual([
        'foo2/bar2',
        'foo2/bar2',
      ]);
      expect(stored(h, ds).status?.updatedNumberScheduled).toBe(2);
      expect(stored(h, ds).status?.numberAvailable).toBe(2);
    });

    it('recreates a pod when more than the image changed', async () => {
      // Prepare
      const ds = inPlace();
      const h = await launch(ds, 2);
      await step(h, ds, 0, 0);
      setTemplate(stored(h, ds), (t) => {
        const [c] = t.spec?.containers ?? [];
        if (c) c.env = [{ name: 'E', value: '1' }];
      });
      // Act / Assess
      await step(h, ds, 0, 1);
    });

    it('recreates a pod created without the readiness gate', async () => {
      // Prepare: pods of a Standard rollout, then the type switches.
      const ds = inPlace();
      const rollingUpdate = ds.spec?.updateStrategy?.rollingUpdate;
      if (rollingUpdate) rollingUpdate.rollingUpdateType = 'Standard';
      const h = await launch(ds, 2);
      updateSpec(h, ds, (s) => {
        const r = s.updateStrategy?.rollingUpdate;
        if (r) r.rollingUpdateType = 'InPlaceIfPossible';
      });
      setImage(h, ds, 'foo2/bar2');
      // Act / Assess
      await step(h, ds, 0, 1);
    });

    it('recreates a pod whose old revision holds no template', async () => {
      // Prepare
      const ds = inPlace();
      const h = await launch(ds, 1);
      await step(h, ds, 0, 0);
      for (const r of h.cluster.revisions) r.data = undefined;
      setImage(h, ds, 'foo2/bar2');
      // Act / Assess
      await step(h, ds, 0, 1);
    });

    it('reports a failed in-place update as a sync error and a Warning event', async () => {
      // Prepare
      const ds = inPlace();
      const h = await launch(ds, 2);
      await step(h, ds, 0, 0);
      setImage(h, ds, 'foo2/bar2');
      h.cluster.patchError = new Error('patch refused');
      // Act
      await clearExpectations(h, ds);
      const { error } = await sync(h, ds);
      // Assess
      expect(error?.message).toContain('patch refused');
      expect(h.events.events.at(-1)?.reason).toBe('FailedUpdatePodInPlace');
      expect(h.cluster.deleted).toEqual([]);
    });
  });
});
