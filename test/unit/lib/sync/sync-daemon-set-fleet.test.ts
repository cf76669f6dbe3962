/**
 * syncDaemonSet under a fleet rollout: the member item's decision is a
 * partition floor under the object's own controls, in every ownership
 * mode, and each sync reports what it saw of the current revision.
 */
import { describe, expect, it } from 'vitest';
import type { MemberObservation } from '#lib/fleet/fleet-rollout-state.js';
import type { FleetMemberRecord, FleetMembership } from '#lib/ports/index.js';
import { EventReason } from '#lib/reconcile/events.js';
import { getTargetNodeName } from '#lib/reconcile/k8s/node-affinity.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  type DaemonSet,
  TEMPLATE_GENERATION_LABEL,
} from '#lib/reconcile/k8s/types.js';
import { ROLLOUT_ANNOTATION } from '#lib/reconcile/on-delete/rollout-annotation.js';
import { syncDaemonSet } from '#lib/sync/sync-daemon-set.js';
import { makeNodes, newDaemonSet } from '../../../helpers/builders.js';
import {
  addDaemonSet,
  clearExpectations,
  type Harness,
  keyOf,
  newHarness,
} from '../../../helpers/harness.js';
import {
  markPodsReady,
  newUpdateUnavailable,
  setImage,
} from '../../../helpers/rollout.js';

/** A member whose decision the test sets; its reports are kept. */
class TestMembership implements FleetMembership {
  member: FleetMemberRecord | undefined;
  readonly reports: MemberObservation[] = [];

  async memberOf(): Promise<FleetMemberRecord | undefined> {
    return this.member;
  }

  async report(_m: FleetMemberRecord, o: MemberObservation): Promise<void> {
    this.reports.push(o);
  }

  hold(decision: FleetMemberRecord['decision']): void {
    this.member = {
      key: 'test/default/agent',
      policy: 'agent',
      decision,
      health: { maxRestartsPerPod: 3, failOnWaitingReasons: [] },
    };
  }

  get last(): MemberObservation {
    return this.reports.at(-1) as MemberObservation;
  }
}

const OLD_IMAGE = 'foo/bar';
const oldPods = (h: Harness) =>
  h.cluster.pods.filter((p) => p.spec?.containers[0]?.image === OLD_IMAGE)
    .length;

/** Syncs until nothing changes (replacements made Ready each round). */
const settle = async (
  h: Harness,
  ds: DaemonSet,
  fleet: TestMembership,
  extra = {}
) => {
  for (let round = 0; round < 20; round++) {
    h.cluster.clearRecords();
    await syncDaemonSet(keyOf(ds), { ...h.deps, fleet, ...extra });
    const writes = h.cluster.created.length + h.cluster.deleted.length;
    await clearExpectations(h, ds);
    markPodsReady(h);
    if (writes === 0) return;
  }
};

/** A RollingUpdate DaemonSet on `nodes` nodes, converged on the old image. */
const converged = async (nodes: number, maxUnavailable: number | string) => {
  const h = newHarness();
  const fleet = new TestMembership();
  const ds = newDaemonSet('agent');
  ds.spec = {
    ...(ds.spec as object),
    updateStrategy: newUpdateUnavailable(maxUnavailable),
  } as DaemonSet['spec'];
  addDaemonSet(h, ds);
  h.cluster.nodes = makeNodes(0, nodes);
  await settle(h, ds, fleet);
  return { h, ds, fleet };
};

/**
 * A converged member pinned on its revision by the fleet, then given a
 * new template; returns the pinned (stable) revision too.
 */
const pinnedThenChanged = async (nodes: number) => {
  const run = await converged(nodes, nodes);
  run.fleet.hold({ partition: 0 });
  await settle(run.h, run.ds, run.fleet);
  const stable = run.fleet.last.revision;
  run.fleet.hold({ stable, partition: 0 });
  setImage(run.h, run.ds, 'foo2/bar2');
  return { ...run, stable };
};

describe('syncDaemonSet (fleet rollout member)', () => {
  it('reports the current revision and reads no hold when no fleet rollout covers it', async () => {
    // Prepare
    const { h, ds, fleet } = await converged(3, 3);
    setImage(h, ds, 'foo2/bar2');
    // Act
    await settle(h, ds, fleet);
    // Assess
    expect(oldPods(h)).toBe(0);
    expect(fleet.reports).toEqual([]);
  });

  it('holds a revision the fleet rollout has not seen on every node, and reports it', async () => {
    // Prepare
    const { h, ds, fleet, stable } = await pinnedThenChanged(4);
    // Act
    await settle(h, ds, fleet);
    // Assess
    expect(oldPods(h)).toBe(4);
    expect(fleet.last).toMatchObject({
      reachable: true,
      desired: 4,
      updatedAvailable: 0,
      failedNodes: 0,
      excludedNodes: 0,
    });
    expect(fleet.last.revision).not.toBe(stable);
  });

  it('replaces all but the step’s partition once the target is pinned', async () => {
    // Prepare
    const { h, ds, fleet, stable } = await pinnedThenChanged(5);
    await settle(h, ds, fleet);
    const target = fleet.last.revision;
    // Act
    fleet.hold({ stable, target, partition: 2 });
    await settle(h, ds, fleet);
    const stepped = oldPods(h);
    const report = fleet.last;
    fleet.hold({ stable, target, partition: 0 });
    await settle(h, ds, fleet);
    // Assess
    expect(stepped).toBe(2);
    expect(report).toMatchObject({ desired: 5, updatedAvailable: 3 });
    expect(oldPods(h)).toBe(0);
    expect(fleet.last).toMatchObject({ desired: 5, updatedAvailable: 5 });
  });

  it('keeps the object’s own higher partition as a floor', async () => {
    // Prepare
    const { h, ds, fleet } = await converged(4, 4);
    fleet.hold({ partition: 0 });
    await settle(h, ds, fleet);
    const stable = fleet.last.revision;
    const s = h.cluster.daemonSets[0] as DaemonSet;
    s.spec = {
      ...(s.spec as object),
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 4, partition: 3 },
      },
    } as DaemonSet['spec'];
    setImage(h, ds, 'foo2/bar2');
    fleet.hold({ stable, partition: 0 });
    await settle(h, ds, fleet);
    // Act
    fleet.hold({ stable, target: fleet.last.revision, partition: 1 });
    await settle(h, ds, fleet);
    // Assess
    expect(oldPods(h)).toBe(3);
  });
});

describe('syncDaemonSet (fleet rollout member, creations)', () => {
  /** The pod on `node`. */
  const podOn = (h: Harness, node: string) =>
    h.cluster.pods.find((p) => getTargetNodeName(p) === node);

  it('creates a new node’s pod from the stable revision while the fleet holds the new one', async () => {
    // Prepare
    const { h, ds, fleet, stable } = await pinnedThenChanged(3);
    await settle(h, ds, fleet);
    // Act
    h.cluster.nodes = makeNodes(0, 4);
    await settle(h, ds, fleet);
    // Assess
    expect(oldPods(h)).toBe(4);
    const labels = podOn(h, 'node-3')?.metadata?.labels ?? {};
    expect(labels[CONTROLLER_REVISION_HASH_LABEL]).toBe(stable);
    expect(labels[TEMPLATE_GENERATION_LABEL]).toBeUndefined();
    expect(fleet.last).toMatchObject({ desired: 4, updatedAvailable: 0 });
  });

  it('moves a pod created from the stable revision when its step comes', async () => {
    // Prepare
    const { h, ds, fleet, stable } = await pinnedThenChanged(3);
    await settle(h, ds, fleet);
    const target = fleet.last.revision;
    h.cluster.nodes = makeNodes(0, 4);
    await settle(h, ds, fleet);
    // Act
    fleet.hold({ stable, target, partition: 0 });
    await settle(h, ds, fleet);
    // Assess
    expect(oldPods(h)).toBe(0);
    expect(
      podOn(h, 'node-3')?.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL]
    ).toBe(target);
  });

  it('creates from the current template once the cluster is released', async () => {
    // Prepare
    const { h, ds, fleet, stable } = await pinnedThenChanged(3);
    await settle(h, ds, fleet);
    fleet.hold({ stable, target: fleet.last.revision, partition: 0 });
    await settle(h, ds, fleet);
    // Act
    h.cluster.nodes = makeNodes(0, 4);
    await settle(h, ds, fleet);
    // Assess
    expect(oldPods(h)).toBe(0);
    expect(h.cluster.pods).toHaveLength(4);
  });

  it('creates from the current template when the cluster keeps no revision of the stable one', async () => {
    // Prepare
    const { h, ds, fleet } = await pinnedThenChanged(3);
    fleet.hold({ stable: 'elsewhere', partition: 0 });
    await settle(h, ds, fleet);
    // Act
    h.cluster.nodes = makeNodes(0, 4);
    await settle(h, ds, fleet);
    // Assess
    expect(oldPods(h)).toBe(3);
    expect(podOn(h, 'node-3')?.spec?.containers[0]?.image).toBe('foo2/bar2');
  });
});

describe('syncDaemonSet (fleet rollout member, native OnDelete mode)', () => {
  /** An OnDelete DaemonSet converged by the cluster's own controller. */
  const onDelete = async (nodes: number, ds = newDaemonSet('agent')) => {
    const h = newHarness();
    const fleet = new TestMembership();
    addDaemonSet(h, ds);
    h.cluster.nodes = makeNodes(0, nodes);
    await settle(h, ds, new TestMembership());
    return { h, ds, fleet };
  };
  const product = (fleet: TestMembership) => ({
    rollsOnDeleteOnly: true,
    fleet,
  });

  it('opts in a DaemonSet the policy covers without the annotation, within the floor', async () => {
    // Prepare
    const { h, ds, fleet } = await onDelete(3);
    setImage(h, ds, 'foo2/bar2');
    await settle(h, ds, new TestMembership());
    fleet.hold({ partition: 0 });
    // Act: the first report pins nothing; held by an unknown revision.
    await settle(h, ds, fleet, product(fleet));
    const target = fleet.last.revision;
    const held = oldPods(h);
    fleet.hold({ stable: 'old', target, partition: 1 });
    for (let i = 0; i < 4; i++) {
      await settle(h, ds, fleet, product(fleet));
      // The cluster's controller refills each deleted node.
      await settle(h, ds, new TestMembership());
    }
    // Assess
    expect(held).toBe(3);
    expect(oldPods(h)).toBe(1);
    expect(fleet.last).toMatchObject({ desired: 3, updatedAvailable: 2 });
  });

  it('refuses a RollingUpdate DaemonSet the policy covers with a Warning', async () => {
    // Prepare
    const ds = newDaemonSet('agent');
    ds.spec = {
      ...(ds.spec as object),
      updateStrategy: newUpdateUnavailable(1),
    } as DaemonSet['spec'];
    const { h, fleet } = await onDelete(2, ds);
    fleet.hold({ partition: 0 });
    // Act
    await syncDaemonSet(keyOf(ds), { ...h.deps, ...product(fleet) });
    // Assess
    expect(h.events.events).toContainEqual(
      expect.objectContaining({
        type: 'Warning',
        reason: EventReason.InvalidRollout,
        message: expect.stringContaining(
          'a fleet rollout policy covers this DaemonSet, but the OnDelete mode needs updateStrategy.type OnDelete, not RollingUpdate'
        ),
      })
    );
    expect(fleet.reports).toEqual([]);
  });

  it('leaves an annotated DaemonSet’s own controls in force beside the fleet', async () => {
    // Prepare
    const ds = newDaemonSet('agent');
    ds.metadata = {
      ...ds.metadata,
      annotations: {
        [ROLLOUT_ANNOTATION]: '{"maxUnavailable": 3, "partition": 2}',
      },
    };
    const { h, fleet } = await onDelete(3, ds);
    setImage(h, ds, 'foo2/bar2');
    await settle(h, ds, new TestMembership());
    fleet.hold({ partition: 0 });
    await settle(h, ds, fleet, product(fleet));
    // Act
    fleet.hold({ stable: 'old', target: fleet.last.revision, partition: 0 });
    await settle(h, ds, fleet, product(fleet));
    // Assess
    expect(oldPods(h)).toBe(2);
  });
});
