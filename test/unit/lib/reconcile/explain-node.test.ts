import { describe, expect, it } from 'vitest';
import {
  type ExplainNodeInput,
  explainNode,
  type NextSyncOnNode,
} from '#lib/reconcile/explain-node.js';
import { requiredNodeAffinityMismatch } from '#lib/reconcile/k8s/node-affinity.js';
import type { DaemonSet, Node, Pod } from '#lib/reconcile/k8s/types.js';
import { computeHash } from '#lib/reconcile/revision-hash.js';
import {
  markPodDeleting,
  newDaemonSet,
  newNode,
  newPod,
  setPodReady,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';

const NOW = Date.parse('2026-11-24T10:00:00Z');
const quiet: NextSyncOnNode = {
  createsPod: false,
  deletesPods: [],
  patchesPods: [],
  waitsForExpectations: false,
};

const rolling = (
  extra: Record<string, unknown> = {},
  ds = newDaemonSet('agent')
): DaemonSet => ({
  ...ds,
  spec: {
    ...(ds.spec as NonNullable<DaemonSet['spec']>),
    updateStrategy: {
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 1, ...extra },
    },
  },
});

/** A pod of `ds` on node-1, current unless `old`. */
const podOf = (ds: DaemonSet, old = false): Pod => {
  const pod = setPodReady(
    newPod('agent-', 'node-1', simpleDaemonSetLabel, ds),
    true,
    NOW - 60_000
  );
  if (old) {
    (pod.metadata as { labels: Record<string, string> }).labels[
      'controller-revision-hash'
    ] = 'old';
  }
  return pod;
};

const explain = (ds: DaemonSet, over: Partial<ExplainNodeInput> = {}) =>
  explainNode({
    ds,
    nodeName: 'node-1',
    node: newNode('node-1'),
    pods: [],
    hash: computeHash(ds),
    nowMs: NOW,
    nextSync: quiet,
    ...over,
  });

describe('explainNode', () => {
  it('names an untolerated NoSchedule taint, kubectl-style', () => {
    // Prepare
    const node: Node = {
      ...newNode('node-1'),
      spec: {
        taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
      },
    };
    // Act
    const got = explain(newDaemonSet('agent'), { node });
    // Assess
    expect(got.verdict).toBe(
      'no daemon pod: untolerated taint dedicated=gpu:NoSchedule'
    );
    expect(got.rejection?.predicate).toBe('taint');
    expect(got.shouldContinueRunning).toBe(true);
  });

  it('says a NoExecute taint removes the running pod', () => {
    // Prepare
    const ds = newDaemonSet('agent');
    const node: Node = {
      ...newNode('node-1'),
      spec: { taints: [{ key: 'maintenance', effect: 'NoExecute' }] },
    };
    // Act
    const got = explain(ds, { node, pods: [podOf(ds)] });
    // Assess
    expect(got.verdict).toMatch(
      /^agent-\w+ \(current revision, Running, Ready\) is removed: untolerated taint maintenance:NoExecute$/
    );
  });

  it('keeps a pod under a new NoSchedule taint and says no new one would be placed', () => {
    // Prepare
    const ds = newDaemonSet('agent');
    const node: Node = {
      ...newNode('node-1'),
      spec: { taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] },
    };
    // Act
    const got = explain(ds, { node, pods: [podOf(ds)] });
    // Assess
    expect(got.verdict).toContain(
      'keeps running, but no new pod would be placed: untolerated taint k=v:NoSchedule'
    );
  });

  it('names the template nodeName', () => {
    // Prepare
    const ds = newDaemonSet('agent');
    (ds.spec as NonNullable<DaemonSet['spec']>).template.spec = {
      containers: [],
      nodeName: 'node-9',
    };
    // Act
    const got = explain(ds);
    // Assess
    expect(got.verdict).toBe('no daemon pod: template nodeName is node-9');
    expect(got.rejection?.predicate).toBe('nodeName');
  });

  it('names the failing affinity term and its requirement', () => {
    // Prepare
    const ds = newDaemonSet('agent');
    (ds.spec as NonNullable<DaemonSet['spec']>).template.spec = {
      containers: [],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  { key: 'zone', operator: 'In', values: ['a', 'b'] },
                ],
              },
              {
                matchFields: [
                  { key: 'metadata.name', operator: 'In', values: ['node-7'] },
                ],
              },
            ],
          },
        },
      },
    };
    // Act
    const got = explain(ds, { node: newNode('node-1', { zone: 'c' }) });
    // Assess
    expect(got.verdict).toBe(
      'no daemon pod: required node affinity: no term matches (term 1: zone In [a,b]: node has zone=c; term 2: metadata.name In [node-7]: node has metadata.name=node-1)'
    );
  });

  it('says when the node does not exist', () => {
    // Act
    const got = explain(newDaemonSet('agent'), { node: undefined });
    // Assess
    expect(got.verdict).toBe('node node-1 does not exist');
    expect(got.nodeExists).toBe(false);
  });

  it('gives the failed-pod backoff until its end', () => {
    // Prepare
    const ds = newDaemonSet('agent');
    const failed = { ...podOf(ds), status: { phase: 'Failed' } };
    const backoff = { delayMs: 20_000, lastUpdateMs: NOW - 5_000 };
    // Act
    const got = explain(ds, { pods: [failed], backoff });
    // Assess
    expect(got.verdict).toBe(
      `failed pod ${failed.metadata?.name} is in failed-pod backoff until 2026-11-24T10:00:15.000Z; it is replaced after that`
    );
  });

  it('says the next sync deletes a failed pod out of backoff', () => {
    // Prepare
    const ds = newDaemonSet('agent');
    const failed = { ...podOf(ds), status: { phase: 'Failed' } };
    const name = failed.metadata?.name as string;
    // Act
    const got = explain(ds, {
      pods: [failed],
      nextSync: { ...quiet, deletesPods: [name] },
    });
    // Assess
    expect(got.verdict).toBe(
      `failed pod ${name}: the next sync deletes it, and a later one creates a new pod`
    );
    expect(got.details).toContain(`next sync: deletes pod ${name}`);
  });

  it('tells a pending create, pending expectations, a burst limit and progressive creation apart', () => {
    // Prepare
    const ds = newDaemonSet('agent');
    const progressive = rolling({ partition: 2 });
    (progressive.spec as { scaleStrategy?: object }).scaleStrategy = {
      partitionedScaling: true,
    };
    // Act
    const creates = explain(ds, { nextSync: { ...quiet, createsPod: true } });
    const waits = explain(ds, {
      nextSync: { ...quiet, waitsForExpectations: true },
    });
    const burst = explain(ds);
    const held = explain(progressive);
    const unpartitioned = { ...progressive, spec: { ...progressive.spec } };
    (unpartitioned.spec as { updateStrategy: object }).updateStrategy = {
      type: 'RollingUpdate',
    };
    const notHeld = explain(unpartitioned as DaemonSet);
    // Assess
    expect(creates.verdict).toBe('no pod yet: the next sync creates one');
    expect(creates.details).toContain('next sync: creates a daemon pod here');
    expect(waits.verdict).toBe(
      'no pod yet: the reconciler waits to observe its earlier creates and deletes'
    );
    expect(burst.verdict).toBe(
      'no pod yet: beyond this sync’s burst of creates; a later sync creates it'
    );
    expect(notHeld.verdict).toBe(burst.verdict);
    expect(held.verdict).toBe(
      'no pod yet: creation is held back by partition 2 (scaleStrategy.partitionedScaling)'
    );
  });

  it('runs a current pod, and notes an unobserved generation', () => {
    // Prepare
    const ds = newDaemonSet('agent');
    (ds.metadata as { generation: number }).generation = 3;
    const pod = podOf(ds);
    // Act
    const got = explain(ds, { pods: [pod] });
    // Assess
    expect(got.verdict).toBe(
      `runs ${pod.metadata?.name} (current revision, Running, Ready)`
    );
    expect(got.details).toContain(
      "the DaemonSet's generation 3 is not yet observed (status has none)"
    );
  });

  it('shows a pod without status as Pending, and no generation note without a generation', () => {
    // Prepare
    const ds = newDaemonSet('agent');
    delete (ds.metadata as { generation?: number }).generation;
    const pod = { ...podOf(ds), status: undefined };
    // Act
    const got = explain(ds, { pods: [pod] });
    // Assess
    expect(got.verdict).toBe(
      `runs ${pod.metadata?.name} (current revision, Pending)`
    );
    expect(got.details).toEqual([]);
  });

  it('notes duplicate pods and shows terminating ones', () => {
    // Prepare
    const ds = newDaemonSet('agent');
    const [a, b] = [podOf(ds), podOf(ds)];
    const gone = markPodDeleting(podOf(ds), NOW);
    // Act
    const got = explain(ds, { pods: [a, b, gone] as Pod[] });
    // Assess
    expect(got.details).toContain(
      'more than one pod of a revision: the next sync keeps the oldest'
    );
    expect(got.pods.find((p) => p.deleting)?.name).toBe(gone.metadata?.name);
  });

  it.each([
    [
      'OnDelete',
      newDaemonSet('agent'),
      quiet,
      'updateStrategy OnDelete: the pod is replaced only when someone deletes it',
    ],
    [
      'paused',
      rolling({ paused: true }),
      quiet,
      'the rollout is paused (rollingUpdate.paused)',
    ],
    [
      'expectations',
      rolling(),
      { ...quiet, waitsForExpectations: true },
      'the reconciler waits to observe its earlier creates and deletes',
    ],
    [
      'a delete',
      rolling(),
      { ...quiet, deletesPods: ['x'] },
      'the next sync replaces it (rolling update)',
    ],
    [
      'in place',
      rolling(),
      { ...quiet, patchesPods: ['x'] },
      'the next sync updates it in place',
    ],
    [
      'canary',
      rolling({ selector: { matchLabels: { canary: 'yes' } } }),
      quiet,
      'the node does not match the canary selector (rollingUpdate.selector)',
    ],
    [
      'partition',
      rolling({ partition: 1 }),
      { ...quiet, inUpdateWorkingSet: false },
      'held on the old revision by partition 1 (the nodes not yet updated with the smallest names stay)',
    ],
    ['no budget known', rolling(), quiet, 'it waits for the rolling update'],
    [
      'unavailable budget',
      rolling(),
      { ...quiet, budget: { maxUnavailable: 1, maxSurge: 0, inUse: 1 } },
      'it waits for the update budget: 1 of maxUnavailable 1 nodes unavailable',
    ],
    [
      'surge budget',
      rolling(),
      { ...quiet, budget: { maxUnavailable: 0, maxSurge: 2, inUse: 2 } },
      'it waits for surge budget: 2 of maxSurge 2 nodes surging',
    ],
  ] as const)(
    'says why an old pod is not updated: %s',
    (_, ds, nextSync, why) => {
      // Prepare
      const pod = podOf(ds, true);
      // Act
      const got = explain(ds, { pods: [pod], nextSync });
      // Assess
      expect(got.verdict).toBe(
        `runs ${pod.metadata?.name} (old revision, Running, Ready) on an old revision: ${why}`
      );
    }
  );
});

describe('requiredNodeAffinityMismatch', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, 'nodeSelector a=b: node has a=c'],
    [{ a: 'b' }, {}, 'nodeSelector a=b: node has no label a'],
  ])('names the nodeSelector entry %o on labels %o', (sel, labels, want) => {
    expect(
      requiredNodeAffinityMismatch(
        { containers: [], nodeSelector: sel },
        newNode('n', labels)
      )
    ).toBe(want);
  });

  it('names empty, unparsable and missing terms', () => {
    // Prepare
    const withTerms = (terms: object[]) => ({
      containers: [],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: terms,
          },
        },
      },
    });
    const node = newNode('n');
    // Act
    const none = requiredNodeAffinityMismatch(withTerms([]), node);
    const bad = requiredNodeAffinityMismatch(
      withTerms([
        {},
        { matchFields: [{ key: 'metadata.name', operator: 'Exists' }] },
      ]),
      node
    );
    // Assess
    expect(none).toBe('required node affinity has no terms (matches no node)');
    expect(bad).toBe(
      'required node affinity: no term matches (term 1: empty (never matches); term 2: does not parse (never matches): field selector operator "Exists" not supported)'
    );
  });
});
