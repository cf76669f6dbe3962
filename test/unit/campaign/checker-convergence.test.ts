/**
 * The checker's convergence rule for a node that may only keep its daemon
 * pod (an untolerated NoSchedule taint): the rolling update replaces its old
 * pod when the budget allows one, and leaves it when upstream's budget is 0.
 */
import { describe, expect, it } from 'vitest';
import { ClusterView } from '../../campaign/checker/cluster-view.js';
import { divergenceOf } from '../../campaign/checker/convergence.js';
import type {
  ControllerRevision,
  DaemonSet,
  IntOrString,
} from '../../campaign/checker/kube-objects.js';
import { RUN, readyDaemonPod, runNode } from './checker-fixtures.js';

const TEMPLATE = {
  metadata: { labels: { app: 'agent' } },
  spec: { containers: [{ name: 'c', image: 'agent:2' }] },
};

/** One tainted node holding an old-revision pod; no node may get a new one. */
const viewWith = (maxUnavailable: IntOrString) => {
  const view = new ClusterView();
  const ds = {
    metadata: { name: 'ds-0', namespace: 'ns', uid: 'u', generation: 2 },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: TEMPLATE,
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable },
      },
    },
    status: {
      observedGeneration: 2,
      desiredNumberScheduled: 0,
      currentNumberScheduled: 0,
      numberMisscheduled: 1,
      numberReady: 0,
      numberAvailable: 0,
      numberUnavailable: 0,
      updatedNumberScheduled: 0,
    },
  } as unknown as DaemonSet;
  const owner = [
    { uid: 'u', controller: true, kind: 'DaemonSet', name: 'ds-0' },
  ];
  view.daemonSets.set('ds-0', ds);
  view.revisions.set('ds-0-new', {
    metadata: {
      name: 'ds-0-new',
      namespace: 'ns',
      labels: { 'controller-revision-hash': 'new' },
      ownerReferences: owner,
    },
    revision: 2,
    data: { spec: { template: { ...TEMPLATE, $patch: 'replace' } } },
  } as unknown as ControllerRevision);
  view.nodes.set(
    'n-0',
    runNode('n-0', [{ key: 'k', value: 'x', effect: 'NoSchedule' }])
  );
  view.pods.set(
    'ds-0-old',
    readyDaemonPod('ds-0-old', 'u', 'ds-0', {
      labels: { 'controller-revision-hash': 'old' },
    })
  );
  return { view, ds };
};

describe('divergenceOf: an old pod on a node that may only keep it', () => {
  it('converges with it kept when no node should run a pod and maxUnavailable is a percentage, as upstream keeps it (campaign seed 30811)', () => {
    // Prepare
    const { view, ds } = viewWith('50%');
    // Act
    const divergence = divergenceOf(view, ds, RUN, Date.now());
    // Assess
    expect(divergence).toBeUndefined();
  });

  it('still wants it replaced when the budget allows one (maxUnavailable 1): upstream deletes it', () => {
    // Prepare
    const { view, ds } = viewWith(1);
    // Act
    const divergence = divergenceOf(view, ds, RUN, Date.now());
    // Assess
    expect(divergence?.detail).toContain('pod ds-0-old has revision hash old');
  });
});
