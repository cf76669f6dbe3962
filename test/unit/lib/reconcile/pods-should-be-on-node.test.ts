import { describe, expect, it } from 'vitest';
import { labelOf, nameOf, uidOf } from '#lib/reconcile/k8s/meta.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import { getNodesToDaemonPods } from '#lib/reconcile/nodes-to-daemon-pods.js';
import {
  failedPodsBackoffKey,
  type ManageInput,
  podsShouldBeOnNode,
} from '#lib/reconcile/pods-should-be-on-node.js';
import {
  makePods,
  markPodDeleting,
  newDaemonSet,
  newNode,
  newPinnedPod,
  newPod,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';

const surge = (ds: DaemonSet): DaemonSet => {
  if (ds.spec) {
    ds.spec.updateStrategy = {
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
    };
  }
  return ds;
};

const input = (ds: DaemonSet, pods: Pod[]): ManageInput => ({
  ds,
  hash: 'h',
  nodeToDaemonPods: getNodesToDaemonPods(pods, false),
  nowMs: 0,
  backoff: new Map(),
});

describe('podsShouldBeOnNode', () => {
  it('creates nothing under surge on a node that should no longer run but keeps its pod (NoSchedule)', () => {
    // Prepare
    const ds = surge(newDaemonSet('foo'));
    const node = newNode('node-0');
    node.spec = { taints: [{ key: 'k', effect: 'NoSchedule' }] };
    const pods = makePods('node-0', simpleDaemonSetLabel, ds, 1).map((p) =>
      markPodDeleting(p, 0)
    );
    // Act
    const plan = podsShouldBeOnNode(node, input(ds, pods));
    // Assess
    expect(plan.nodesNeedingDaemonPods).toEqual([]);
    expect(plan.podsToDelete).toEqual([]);
  });

  it('plans nothing, but counts no desired pod, on a node without daemon pods that must get no new one (NoSchedule)', () => {
    // Prepare
    for (const ds of [newDaemonSet('foo'), surge(newDaemonSet('foo'))]) {
      const node = newNode('node-0');
      node.spec = { taints: [{ key: 'k', effect: 'NoSchedule' }] };
      // Act
      const plan = podsShouldBeOnNode(node, input(ds, []));
      // Assess
      expect(plan.nodesNeedingDaemonPods).toEqual([]);
      expect(plan.podsToDelete).toEqual([]);
      expect(plan.desiredNumberScheduled).toBe(0);
    }
  });

  it('converges-after-faults: deletes a pod the scheduler never bound on a node whose NoSchedule taint it does not tolerate, and keeps a bound one (campaign seed 10021; upstream keeps both)', () => {
    // Prepare: one pod created from a node list read just before the taint
    // (Pending, pinned by affinity), one that was running there before it.
    for (const rolling of [newDaemonSet('foo'), surge(newDaemonSet('foo'))]) {
      const node = newNode('node-0');
      node.spec = { taints: [{ key: 'k', effect: 'NoSchedule' }] };
      const pinned = newPinnedPod(
        'p-',
        'node-0',
        simpleDaemonSetLabel,
        rolling
      );
      const [bound] = makePods('node-0', simpleDaemonSetLabel, rolling, 1);
      // Act
      const alone = podsShouldBeOnNode(node, input(rolling, [pinned]));
      const beside = podsShouldBeOnNode(
        node,
        input(rolling, [pinned, ...(bound ? [bound] : [])])
      );
      // Assess
      expect(alone.podsToDelete).toEqual([nameOf(pinned)]);
      expect(alone.nodesNeedingDaemonPods).toEqual([]);
      expect(beside.podsToDelete).toEqual([nameOf(pinned)]);
    }
  });

  it('deletes only pods not already terminating on a node that must not keep them (NoExecute)', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const node = newNode('node-0');
    node.spec = { taints: [{ key: 'k', effect: 'NoExecute' }] };
    const [a, b] = makePods('node-0', simpleDaemonSetLabel, ds, 2);
    const pods = [a, b && markPodDeleting(b, 0)].filter((p): p is Pod => !!p);
    // Act
    const plan = podsShouldBeOnNode(node, input(ds, pods));
    // Assess
    expect(plan.podsToDelete).toEqual([a?.metadata?.name]);
  });

  it('keeps a single surge pod', () => {
    // Prepare
    const ds = surge(newDaemonSet('foo'));
    const pods = makePods('node-0', simpleDaemonSetLabel, ds, 1);
    // Act
    const plan = podsShouldBeOnNode(newNode('node-0'), input(ds, pods));
    // Assess
    expect(plan).toMatchObject({
      nodesNeedingDaemonPods: [],
      podsToDelete: [],
    });
  });

  it('bumps the backoff once for two failed pods on one node and requeues for the second', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const pods = makePods('node-0', simpleDaemonSetLabel, ds, 2).map((p) => ({
      ...p,
      status: { phase: 'Failed' },
    }));
    // Act
    const plan = podsShouldBeOnNode(newNode('node-0'), input(ds, pods));
    // Assess
    expect(plan.podsToDelete).toHaveLength(1);
    expect(plan.backoffUpdates).toEqual([
      {
        key: failedPodsBackoffKey(ds, 'node-0'),
        entry: { delayMs: 1000, lastUpdateMs: 0 },
      },
    ]);
    expect(plan.requeueAfterMs).toBe(1000);
  });
});

describe('podsShouldBeOnNode with surge and minReadySeconds', () => {
  it('keeps the old ready pod until the new one has been ready for minReadySeconds', () => {
    // Prepare
    const ds = surge(newDaemonSet('foo'));
    if (ds.spec) ds.spec.minReadySeconds = 10;
    const [old, fresh] = makePods('node-0', simpleDaemonSetLabel, ds, 2);
    const ready = (p: Pod | undefined, since: string): Pod => ({
      ...(p as Pod),
      status: {
        phase: 'Running',
        conditions: [
          { type: 'Ready', status: 'True', lastTransitionTime: since },
        ],
      },
    });
    const pods = [
      ready(old, '2026-01-01T00:00:00Z'),
      {
        ...ready(fresh, '2026-01-01T00:00:00Z'),
        metadata: {
          ...fresh?.metadata,
          labels: { 'controller-revision-hash': 'h' },
        },
      },
    ];
    const at = Date.parse('2026-01-01T00:00:05Z');
    // Act
    const plan = podsShouldBeOnNode(newNode('node-0'), {
      ...input(ds, pods),
      nowMs: at,
    });
    const later = podsShouldBeOnNode(newNode('node-0'), {
      ...input(ds, pods),
      nowMs: at + 5_000,
    });
    // Assess
    expect(plan.podsToDelete).toEqual([]);
    expect(later.podsToDelete).toEqual([old?.metadata?.name]);
  });
});

describe('getNodesToDaemonPods', () => {
  it('skips pods without a target node', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const unbound = newPod('p-', '', simpleDaemonSetLabel, ds);
    // Act / Assess
    expect(getNodesToDaemonPods([unbound], true).size).toBe(0);
  });
});

describe('metadata accessors', () => {
  it('read absent fields as empty', () => {
    // Act / Assess
    expect(nameOf({})).toBe('');
    expect(uidOf({})).toBe('');
    expect(labelOf({}, 'a')).toBe('');
    expect(labelOf({ metadata: { labels: { a: 'b' } } }, 'a')).toBe('b');
    expect(failedPodsBackoffKey({}, 'n')).toBe('/0/n');
  });
});
