/**
 * The event handlers beside a DaemonSet whose stored spec cannot be judged
 * (a schemaless template the API server let through): that DaemonSet wakes
 * itself, every other DaemonSet is judged as usual, and nothing throws.
 */
import { describe, expect, it } from 'vitest';
import {
  addNode,
  type ClusterView,
  ownerOutsideSelector,
} from '#lib/reconcile/event-keys/index.js';
import { updateNodeResumed } from '#lib/reconcile/event-keys/resumed.js';
import type { DaemonSet, Node } from '#lib/reconcile/k8s/types.js';
import {
  newDaemonSet,
  newNode,
  newPod,
  simpleDaemonSetLabel,
} from '#test/helpers/builders.js';

const withPodSpec = (
  ds: DaemonSet,
  spec: Record<string, unknown>
): DaemonSet => {
  const out = structuredClone(ds);
  Object.assign(out.spec?.template.spec ?? {}, spec);
  return out;
};

const taint = { key: 'dedicated', value: 'infra', effect: 'NoSchedule' };
const tainted = (node: Node): Node => ({
  ...node,
  spec: { taints: [taint] },
});

// Tolerates the taint and selects blue nodes.
const good = withPodSpec(newDaemonSet('good'), {
  tolerations: [{ key: 'dedicated', operator: 'Exists' }],
  nodeSelector: { color: 'blue' },
});
const tolerationsAsMap = withPodSpec(newDaemonSet('tolerations-map'), {
  tolerations: { a: 1 },
});
const termsAsString = withPodSpec(newDaemonSet('terms-string'), {
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: 'x',
      },
    },
  },
});
const view: ClusterView = {
  cluster: 'c1',
  daemonSets: [good, tolerationsAsMap, termsAsString],
  ownerKind: 'DaemonSet',
};
const keyOf = (ds: DaemonSet) => `c1/default/${ds.metadata?.name}`;

describe('event handlers beside a DaemonSet whose spec cannot be judged', () => {
  it('wakes it and the DaemonSets that should run on an added node', () => {
    // Prepare
    const node = tainted(newNode('node-1', { color: 'blue' }));

    // Act
    const out = addNode(view, node, []);

    // Assess
    expect(out.keys.sort()).toEqual(
      [good, tolerationsAsMap, termsAsString].map(keyOf).sort()
    );
  });

  it('wakes it and nothing else when a relabel changes no other placement', () => {
    // Prepare
    const node = tainted(newNode('node-1', { color: 'red', zone: 'b' }));

    // Act
    const out = updateNodeResumed(
      view,
      { labels: { color: 'red', zone: 'a' }, taints: [taint] },
      node
    );

    // Assess
    expect(out.keys.sort()).toEqual(
      [tolerationsAsMap, termsAsString].map(keyOf).sort()
    );
  });

  it('wakes the others whose placement a relabel changes', () => {
    // Prepare
    const node = tainted(newNode('node-1', { color: 'blue' }));

    // Act
    const out = updateNodeResumed(
      view,
      { labels: { color: 'red' }, taints: [taint] },
      node
    );

    // Assess
    expect(out.keys).toContain(keyOf(good));
  });

  it('finds an owned pod outside an invalid selector instead of throwing', () => {
    // Prepare
    const bad = newDaemonSet('bad-selector');
    if (bad.spec) bad.spec.selector = { matchLabels: { 'bad key!': 'x' } };
    const pod = newPod('p-', 'node-1', simpleDaemonSetLabel, bad);
    const badView: ClusterView = { ...view, daemonSets: [bad] };

    // Act
    const owner = ownerOutsideSelector(badView, pod);

    // Assess
    expect(owner).toBe(bad);
  });

  it('finds an owned pod without labels outside its owner’s selector', () => {
    // Prepare
    const pod = newPod('p-', 'node-1', simpleDaemonSetLabel, good);
    if (pod.metadata) pod.metadata.labels = undefined;

    // Act
    const owner = ownerOutsideSelector(view, pod);

    // Assess
    expect(owner).toBe(good);
  });
});
