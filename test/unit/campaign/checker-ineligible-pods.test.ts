/**
 * The checker's no-pod-on-ineligible-node grace: unblocked time is counted
 * at the view's time (the view lags the wall clock by the events it holds),
 * against the runner's block changes made in wall time.
 */
import { describe, expect, it } from 'vitest';
import { ClusterView } from '../../campaign/checker/cluster-view.js';
import { IneligiblePodMonitor } from '../../campaign/checker/ineligible-pods.js';
import type { Pod } from '../../campaign/checker/kube-objects.js';
import { agentDaemonSet, RUN, runNode } from './checker-fixtures.js';

/** A pod on a node whose NoExecute taint the DaemonSet does not tolerate. */
const misplacedPod = (): ClusterView => {
  const view = new ClusterView();
  view.daemonSets.set('ds-0', agentDaemonSet('ds-0', 'u', 1));
  view.nodes.set(
    'n-0',
    runNode('n-0', [{ key: 'k', value: 'x', effect: 'NoExecute' }])
  );
  view.pods.set('ds-0-a', {
    metadata: {
      name: 'ds-0-a',
      namespace: 'ns',
      uid: 'p',
      labels: { app: 'agent' },
      ownerReferences: [
        { uid: 'u', controller: true, kind: 'DaemonSet', name: 'ds-0' },
      ],
    },
    spec: { nodeName: 'n-0', containers: [] },
    status: { phase: 'Running' },
  } as unknown as Pod);
  return view;
};

describe('IneligiblePodMonitor', () => {
  it('counts only unblocked time up to the view time, with blocks made in wall time (campaign seed 90001: a checker false positive)', () => {
    // Prepare: misplaced from view time 0; blocked 2–6 s (wall).
    const view = misplacedPod();
    const monitor = new IneligiblePodMonitor(RUN, 10_000);
    monitor.evaluate(view, 0);
    monitor.setBlocked(true, 2_000);
    monitor.setBlocked(false, 6_000);
    // Act: at view time 14 s: 10 s unblocked (not over); at 14.1 s: over.
    const at14 = monitor.evaluate(view, 14_000);
    const at14point1 = monitor.evaluate(view, 14_100);
    // Assess
    expect(at14).toEqual([]);
    expect(at14point1.map((v) => v.invariant)).toEqual([
      'no-pod-on-ineligible-node',
    ]);
    expect(at14point1[0]?.detail).toContain('10.1 s of unblocked time');
  });

  it('reports nothing for a pod gone from the view before its grace ran out', () => {
    // Prepare
    const view = misplacedPod();
    const monitor = new IneligiblePodMonitor(RUN, 10_000);
    monitor.evaluate(view, 0);
    view.pods.delete('ds-0-a');
    // Act
    const found = monitor.evaluate(view, 20_000);
    // Assess
    expect(found).toEqual([]);
  });
});
