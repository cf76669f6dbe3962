/**
 * The checker's rules for the native OnDelete mode: the budget read from
 * the `apps.dsr.dev/rollout` annotation, the partition's and the pause's
 * hold on the product's deletions, convergence that leaves exactly the
 * partition's old pods, and no pod spec or DaemonSet written by the
 * product.
 */
import { describe, expect, it } from 'vitest';
import { ClusterView } from '../../campaign/checker/cluster-view.js';
import { divergenceOf } from '../../campaign/checker/convergence.js';
import type {
  ControllerRevision,
  DaemonSet,
  Pod,
} from '../../campaign/checker/kube-objects.js';
import { onDeleteControls } from '../../campaign/checker/on-delete-controls.js';
import { OnDeleteRolloutMonitor } from '../../campaign/checker/on-delete-rollout.js';
import { ProductWritesMonitor } from '../../campaign/checker/product-writes.js';
import { UnavailabilityBudgetMonitor } from '../../campaign/checker/unavailability-budget.js';
import {
  READY_SINCE,
  RUN,
  readyDaemonPod,
  runNode,
} from './checker-fixtures.js';

const SLACK_MS = 4_000;
const NOW = Date.parse(READY_SINCE) + 60_000;
const TEMPLATE = {
  metadata: { labels: { app: 'agent' } },
  spec: { containers: [{ name: 'c', image: 'agent:2' }] },
};
const NODES = ['n-0', 'n-1', 'n-2', 'n-3'];

/** An opted-in OnDelete DaemonSet with `controls`, its status converged. */
const onDeleteDaemonSet = (controls: object, updated = 4): DaemonSet =>
  ({
    metadata: {
      name: 'ds-0',
      namespace: 'ns',
      uid: 'u',
      generation: 2,
      annotations: { 'apps.dsr.dev/rollout': JSON.stringify(controls) },
    },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: TEMPLATE,
      updateStrategy: { type: 'OnDelete' },
    },
    status: {
      observedGeneration: 2,
      desiredNumberScheduled: 4,
      currentNumberScheduled: 4,
      numberMisscheduled: 0,
      numberReady: 4,
      numberAvailable: 4,
      numberUnavailable: 0,
      updatedNumberScheduled: updated,
    },
  }) as unknown as DaemonSet;

/** Four nodes, each with one Ready pod; those on `oldOn` of the old revision. */
const rollout = (controls: object, oldOn: string[], updated?: number) => {
  const view = new ClusterView();
  view.daemonSets.set('ds-0', onDeleteDaemonSet(controls, updated));
  view.revisions.set('ds-0-new', {
    metadata: {
      name: 'ds-0-new',
      namespace: 'ns',
      uid: 'r',
      labels: { 'controller-revision-hash': 'new' },
      ownerReferences: [{ uid: 'u', controller: true }],
    },
    revision: 2,
    data: { spec: { template: { ...TEMPLATE, $patch: 'replace' } } },
  } as unknown as ControllerRevision);
  for (const node of NODES) {
    view.nodes.set(node, runNode(node));
    const pod = readyDaemonPod(`ds-0-${node}`, 'u', 'ds-0', {
      uid: `p-${node}`,
      labels: {
        'controller-revision-hash': oldOn.includes(node) ? 'old' : 'new',
      },
    });
    (pod.spec as { nodeName: string }).nodeName = node;
    view.pods.set(pod.metadata.name, pod);
  }
  return view;
};

const pod = (view: ClusterView, node: string) =>
  view.pods.get(`ds-0-${node}`) as Pod;

/** Deletes the pods on `nodes` one after another, 1 s apart; returns what `judge` found. */
const deleteOn = (
  view: ClusterView,
  nodes: string[],
  judge: (before: Pod, atMs: number) => unknown[]
) =>
  nodes.flatMap((node, i) => {
    const before = pod(view, node);
    const found = judge(before, NOW + i * 1_000);
    view.pods.delete(before.metadata.name);
    return found;
  });

describe('onDeleteControls', () => {
  it.each([
    {
      name: 'reads an opted-in DaemonSet’s controls, defaults included',
      ds: onDeleteDaemonSet({ partition: '50%' }),
      want: {
        maxUnavailable: 1,
        partition: '50%',
        paused: false,
        hasSelector: false,
      },
    },
    {
      name: 'leaves a RollingUpdate DaemonSet with the annotation out',
      ds: {
        ...onDeleteDaemonSet({}),
        spec: { ...onDeleteDaemonSet({}).spec, updateStrategy: {} },
      },
      want: undefined,
    },
  ])('$name', ({ ds, want }) => {
    // Act
    const controls = onDeleteControls(ds as DaemonSet);
    // Assess
    expect(controls).toEqual(want);
  });
});

describe('UnavailabilityBudgetMonitor in the OnDelete mode', () => {
  const play = (maxUnavailable: number) => {
    // Prepare
    const view = rollout({ maxUnavailable }, NODES);
    const monitor = new UnavailabilityBudgetMonitor(RUN, () => false, SLACK_MS);
    monitor.observeView(view, NOW - 10_000);
    // Act
    return deleteOn(view, ['n-0', 'n-1'], (before, atMs) =>
      monitor.observePodChange(view, before, undefined, atMs)
    );
  };

  it('reports two nodes emptied by deletions against the annotation’s maxUnavailable 1', () => {
    // Act
    const found = play(1);
    // Assess
    expect(found).toMatchObject([
      {
        invariant: 'unavailable-within-budget',
        detail: expect.stringContaining('OnDelete rollout maxUnavailable 1'),
      },
    ]);
  });

  it('allows them under maxUnavailable 2', () => {
    // Act / Assess
    expect(play(2)).toEqual([]);
  });
});

describe('OnDeleteRolloutMonitor', () => {
  const monitorOf = (view: ClusterView, chaos: string[] = []) => {
    const monitor = new OnDeleteRolloutMonitor(
      RUN,
      (name) => chaos.includes(name),
      SLACK_MS
    );
    monitor.observeView(view, NOW - 10_000);
    return monitor;
  };

  it('reports a deletion that leaves fewer old nodes than the partition', () => {
    // Prepare
    const view = rollout({ maxUnavailable: 4, partition: 2 }, NODES);
    const monitor = monitorOf(view);
    // Act
    const found = deleteOn(view, ['n-3', 'n-2', 'n-1'], (before, atMs) =>
      monitor.observePodChange(view, before, undefined, atMs)
    );
    // Assess
    expect(found).toMatchObject([
      { invariant: 'partition-respected', pod: 'ds-0-n-1' },
    ]);
  });

  it('counts a node whose old pod chaos took within the slack as old, as the product’s lagging view may', () => {
    // Prepare
    const view = rollout({ maxUnavailable: 4, partition: 2 }, NODES);
    const monitor = monitorOf(view, ['ds-0-n-0']);
    // Act
    const found = deleteOn(view, ['n-0', 'n-3', 'n-2'], (before, atMs) =>
      monitor.observePodChange(view, before, undefined, atMs)
    );
    // Assess
    expect(found).toEqual([]);
  });

  it('reports an available old pod deleted while the rollout is paused', () => {
    // Prepare
    const view = rollout({ paused: true }, ['n-0']);
    const monitor = monitorOf(view);
    // Act
    const found = monitor.observePodChange(
      view,
      pod(view, 'n-0'),
      undefined,
      NOW
    );
    // Assess
    expect(found).toMatchObject([{ invariant: 'pause-respected' }]);
  });
});

describe('divergenceOf an OnDelete rollout', () => {
  it('takes exactly the partition’s old nodes as converged', () => {
    // Prepare
    const view = rollout({ partition: 1 }, ['n-0'], 3);
    // Act
    const d = divergenceOf(
      view,
      view.daemonSets.get('ds-0') as DaemonSet,
      RUN,
      NOW
    );
    // Assess
    expect(d).toBeUndefined();
  });

  it('reports more old nodes than the partition holds', () => {
    // Prepare
    const view = rollout({ partition: 1 }, ['n-0', 'n-1'], 2);
    // Act
    const d = divergenceOf(
      view,
      view.daemonSets.get('ds-0') as DaemonSet,
      RUN,
      NOW
    );
    // Assess
    expect(d?.detail).toContain(
      '2 eligible nodes on an old revision (n-0, n-1), partition 1 holds 1'
    );
  });
});

describe('ProductWritesMonitor', () => {
  it('reports a pod whose spec the product’s field manager wrote, and not its status conditions', () => {
    // Prepare
    const view = rollout({}, []);
    const entry = (subresource?: string) => ({
      manager: 'product',
      operation: 'Update',
      ...(subresource ? { subresource } : {}),
      fieldsV1: subresource ? { 'f:status': {} } : { 'f:spec': {} },
    });
    pod(view, 'n-0').metadata.managedFields = [entry()];
    pod(view, 'n-1').metadata.managedFields = [entry('status')];
    // Act
    const found = new ProductWritesMonitor('product').evaluate(view, NOW);
    // Assess
    expect(found).toMatchObject([
      { invariant: 'product-never-creates', pod: 'ds-0-n-0' },
    ]);
  });
});
