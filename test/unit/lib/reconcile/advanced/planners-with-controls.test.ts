/**
 * Upstream's `manage` and `rollingUpdate` planners under the own kind's
 * rollout controls (spec/kruise-ads.md §2.4, §2.6): progressive creation
 * gated by the partition, and the update working set cut by the partition
 * and the canary selector. Kruise's ad-hoc TestAdhocIntPartitionFirstSync
 * case is reproduced; the percentage case follows our deliberate difference
 * (scaled against the live desired count, not the previous status).
 */
import { describe, expect, it } from 'vitest';
import {
  LIFECYCLE_STATE_LABEL,
  PREPARING_DELETE,
} from '#lib/reconcile/advanced/rollout-controls.js';
import type {
  AdvancedRollingUpdate,
  DaemonSet,
  Pod,
} from '#lib/reconcile/k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '#lib/reconcile/k8s/types.js';
import { getNodesToDaemonPods } from '#lib/reconcile/nodes-to-daemon-pods.js';
import { planManage } from '#lib/reconcile/pods-should-be-on-node.js';
import { planRollingUpdate } from '#lib/reconcile/rolling-update.js';
import {
  makeNodes,
  markPodReady,
  newDaemonSet,
  newNode,
  newPod,
  simpleDaemonSetLabel,
} from '../../../../helpers/builders.js';

const HASH = 'v2';
const NOW = 1_767_225_600_000;

const advanced = (
  rollingUpdate: AdvancedRollingUpdate & {
    maxUnavailable?: number | string;
  },
  partitionedScaling = false
): DaemonSet => {
  const ds = newDaemonSet('ads');
  if (ds.spec) {
    ds.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate };
    ds.spec.scaleStrategy = { partitionedScaling };
  }
  return ds;
};

const podOn = (node: string, hash: string): Pod =>
  markPodReady(
    newPod(`${node}-`, node, {
      ...simpleDaemonSetLabel,
      [CONTROLLER_REVISION_HASH_LABEL]: hash,
    }),
    NOW - 60_000
  );

const manage = (ds: DaemonSet, nodeCount: number, pods: Pod[] = []) =>
  planManage(makeNodes(0, nodeCount), {
    ds,
    hash: HASH,
    nodeToDaemonPods: getNodesToDaemonPods(pods, false),
    nowMs: NOW,
    backoff: new Map(),
  });

describe('planManage with partitionedScaling', () => {
  it('TestAdhocIntPartitionFirstSync: 4 nodes, partition 3 ⇒ one create, on node-0', () => {
    // Act
    const plan = manage(advanced({ partition: 3 }, true), 4);
    // Assess
    expect(plan.nodesNeedingDaemonPods).toEqual(['node-0']);
    expect(plan.desiredNumberScheduled).toBe(4);
  });

  it('holds back half the nodes for partition 50% from the first sync', () => {
    // Act
    const plan = manage(advanced({ partition: '50%' }, true), 4);
    // Assess
    expect(plan.nodesNeedingDaemonPods).toEqual(['node-0', 'node-1']);
  });

  it('counts nodes already on the current revision against the quota', () => {
    // Prepare
    const pods = [podOn('node-0', HASH), podOn('node-1', 'v1')];
    // Act
    const plan = manage(advanced({ partition: 2 }, true), 4, pods);
    // Assess: 4 − 1 new − 2 held ⇒ 1 more.
    expect(plan.nodesNeedingDaemonPods).toEqual(['node-2']);
  });

  it('creates everywhere with partition 0, or without partitionedScaling', () => {
    // Act
    const zero = manage(advanced({ partition: 0 }, true), 3);
    const notProgressive = manage(advanced({ partition: 2 }, false), 3);
    const noPartition = manage(advanced({}, true), 3);
    // Assess
    const all = ['node-0', 'node-1', 'node-2'];
    expect(zero.nodesNeedingDaemonPods).toEqual(all);
    expect(notProgressive.nodesNeedingDaemonPods).toEqual(all);
    expect(noPartition.nodesNeedingDaemonPods).toEqual(all);
  });
});

describe('planRollingUpdate with a partition and a canary selector', () => {
  const oldEverywhere = (count: number) =>
    new Map(
      Array.from({ length: count }, (_, i) => [
        `node-${i}`,
        [podOn(`node-${i}`, 'v1')],
      ])
    );

  it('updates only the nodes above the partition, largest names first', () => {
    // Prepare: maxUnavailable would allow all three.
    const ds = advanced({ maxUnavailable: 3, partition: 2 });
    // Act
    const plan = planRollingUpdate(
      ds,
      makeNodes(0, 3),
      oldEverywhere(3),
      HASH,
      NOW
    );
    // Assess
    expect(plan.podsToDelete).toHaveLength(1);
    expect(plan.podsToDelete[0]).toMatch(/^node-2-/);
  });

  it('updates only canary nodes when a selector is set', () => {
    // Prepare
    const ds = advanced({
      maxUnavailable: 3,
      selector: { matchLabels: { canary: 'true' } },
    });
    const nodes = [
      newNode('node-0', { canary: 'true' }),
      newNode('node-1'),
      newNode('node-2', { canary: 'true' }),
    ];
    // Act
    const plan = planRollingUpdate(ds, nodes, oldEverywhere(3), HASH, NOW);
    // Assess
    expect(
      plan.podsToDelete.map((p) => p.replace(/-[^-]*$/, '')).sort()
    ).toEqual(['node-0', 'node-2']);
  });

  it('updates nothing when the partition covers every node', () => {
    // Act
    const plan = planRollingUpdate(
      advanced({ maxUnavailable: 3, partition: '100%' }),
      makeNodes(0, 3),
      oldEverywhere(3),
      HASH,
      NOW
    );
    // Assess
    expect(plan.podsToDelete).toEqual([]);
  });
});

describe('planRollingUpdate with pods a preDelete hook holds', () => {
  const held = (pod: Pod): Pod => {
    pod.metadata = {
      ...pod.metadata,
      labels: {
        ...pod.metadata?.labels,
        [LIFECYCLE_STATE_LABEL]: PREPARING_DELETE,
      },
    };
    return pod;
  };

  it('counts a held new pod against maxUnavailable (no surge)', () => {
    // Prepare: node-0 has a live old pod and a held new one.
    const byNode = new Map<string, Pod[]>([
      ['node-0', [podOn('node-0', 'v1'), held(podOn('node-0', HASH))]],
      ['node-1', [podOn('node-1', 'v1')]],
      ['node-2', [podOn('node-2', 'v1')]],
    ]);
    // Act
    const plan = planRollingUpdate(
      advanced({ maxUnavailable: 2 }),
      makeNodes(0, 3),
      byNode,
      HASH,
      NOW
    );
    // Assess: the held pod uses one of the two: one delete, not two.
    expect(plan.podsToDelete).toHaveLength(1);
  });

  it('TestAdhocNoSurgePreDeleteBlocks: a held old pod blocks maxUnavailable', () => {
    // Prepare
    const byNode = new Map<string, Pod[]>([
      ['node-0', [held(podOn('node-0', 'v1'))]],
      ['node-1', [podOn('node-1', 'v1')]],
    ]);
    // Act
    const plan = planRollingUpdate(
      advanced({ maxUnavailable: 1 }),
      makeNodes(0, 2),
      byNode,
      HASH,
      NOW
    );
    // Assess
    expect(plan.podsToDelete).toEqual([]);
  });

  it('TestAdhocSurgePreDeleteNotCounted: a held old pod does not use maxSurge', () => {
    // Prepare
    const byNode = new Map<string, Pod[]>([
      ['node-0', [held(podOn('node-0', 'v1'))]],
      ['node-1', [podOn('node-1', 'v1')]],
    ]);
    const ds = advanced({});
    if (ds.spec?.updateStrategy?.rollingUpdate) {
      ds.spec.updateStrategy.rollingUpdate.maxSurge = 1;
      ds.spec.updateStrategy.rollingUpdate.maxUnavailable = 0;
    }
    // Act
    const plan = planRollingUpdate(ds, makeNodes(0, 2), byNode, HASH, NOW);
    // Assess: node-1 still gets its surge pod.
    expect(plan.nodesNeedingDaemonPods).toEqual(['node-1']);
  });
});
