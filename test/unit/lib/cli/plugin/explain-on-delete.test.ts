/**
 * `kubectl dsr plan` and `explain` on an opted-in OnDelete DaemonSet: the
 * dry run syncs it as the OnDelete mode does (deletes within the budget,
 * never a create) and explain names the control that holds a node on the
 * old revision.
 */
import { describe, expect, it } from 'vitest';
import { explainReport } from '#lib/cli/plugin/explain-command.js';
import {
  LIFECYCLE_STATE_LABEL,
  PREPARING_DELETE,
} from '#lib/reconcile/advanced/rollout-controls.js';
import { getTargetNodeName } from '#lib/reconcile/k8s/node-affinity.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import {
  PAUSED_ANNOTATION,
  ROLLOUT_ANNOTATION,
} from '#lib/reconcile/on-delete/rollout-annotation.js';
import { planNextSync } from '#lib/sync/plan-next-sync.js';
import { syncDaemonSet } from '#lib/sync/sync-daemon-set.js';
import { makeNodes, newDaemonSet } from '../../../../helpers/builders.js';
import {
  addDaemonSet,
  CLUSTER,
  clearExpectations,
  type Harness,
  keyOf,
  newHarness,
  stored,
} from '../../../../helpers/harness.js';
import { markPodsReady, setImage } from '../../../../helpers/rollout.js';

/** Four nodes converged by the cluster's controller, then a new image. */
const rolledOut = async (annotations: Record<string, string>) => {
  const h = newHarness();
  const ds = addDaemonSet(h, newDaemonSet('agent'));
  ds.metadata = { ...ds.metadata, annotations };
  h.cluster.nodes = makeNodes(0, 4);
  // The cluster's own controller: upstream's OnDelete sync creates only.
  const clusterController = async () => {
    await syncDaemonSet(keyOf(ds), h.deps);
    await clearExpectations(h, ds);
  };
  await clusterController();
  markPodsReady(h);
  setImage(h, ds, 'foo2/bar2');
  await clusterController();
  return { h, ds };
};

const plan = (h: Harness, ds: DaemonSet) =>
  planNextSync(keyOf(ds), { reader: h.cluster, clock: h.clock });

const explain = async (h: Harness, ds: DaemonSet, node: string) => {
  const next = await plan(h, ds);
  return explainReport(
    { ...next, daemonSet: next.daemonSet as DaemonSet },
    node,
    h.clock.now(),
    CLUSTER
  );
};

describe('plan and explain (native OnDelete mode)', () => {
  it('plans the deletes the partition allows, and no create', async () => {
    // Prepare
    const { h, ds } = await rolledOut({
      [ROLLOUT_ANNOTATION]: '{"maxUnavailable": 4, "partition": 2}',
    });
    // Act
    const next = await plan(h, ds);
    // Assess
    expect(next.writes.filter((w) => w.verb === 'create-pod')).toEqual([]);
    expect(next.writes.filter((w) => w.verb === 'delete-pod')).toHaveLength(2);
    expect(h.cluster.deleted).toEqual([]);
  });

  it('explains a node held by the partition', async () => {
    // Prepare
    const { h, ds } = await rolledOut({
      [ROLLOUT_ANNOTATION]: '{"maxUnavailable": 4, "partition": 2}',
    });
    // Act
    const held = await explain(h, ds, 'node-0');
    // Assess
    expect(held.verdict).toContain('held on the old revision by partition 2');
  });

  it('explains a node held by a pause', async () => {
    // Prepare
    const { h, ds } = await rolledOut({
      [ROLLOUT_ANNOTATION]: '{}',
      [PAUSED_ANNOTATION]: 'true',
    });
    // Act
    const held = await explain(h, ds, 'node-0');
    // Assess
    expect(held.verdict).toContain('the rollout is paused');
    expect(stored(h, ds).spec?.updateStrategy?.type).toBe('OnDelete');
  });

  it('explains a node held by its preDelete hook', async () => {
    // Prepare
    const { h, ds } = await rolledOut({
      [ROLLOUT_ANNOTATION]: '{"preDelete": {"labelsHandler": {"hold": "yes"}}}',
    });
    const pod = h.cluster.pods.find((p) => getTargetNodeName(p) === 'node-0');
    if (pod?.metadata) {
      pod.metadata.labels = {
        ...pod.metadata.labels,
        hold: 'yes',
        [LIFECYCLE_STATE_LABEL]: PREPARING_DELETE,
      };
    }
    // Act
    const held = await explain(h, ds, 'node-0');
    // Assess
    expect(held.verdict).toContain(
      'held by its preDelete hook (PreparingDelete)'
    );
  });

  it('explains a node the canary selector leaves out, and one waiting for the budget', async () => {
    // Prepare
    const { h, ds } = await rolledOut({
      [ROLLOUT_ANNOTATION]: '{"selector": {"matchLabels": {"canary": "true"}}}',
    });
    const budget = await rolledOut({
      [ROLLOUT_ANNOTATION]: '{"maxUnavailable": 1}',
    });
    await syncDaemonSet(keyOf(budget.ds), {
      ...budget.h.deps,
      rollsOnDeleteOnly: true,
    });
    // Act
    const outside = await explain(h, ds, 'node-0');
    const waiting = await explain(budget.h, budget.ds, 'node-3');
    // Assess
    expect(outside.verdict).toContain('does not match the canary selector');
    expect(waiting.verdict).toMatch(
      /waits for the (update budget|reconciler to observe)/
    );
  });
});
