/**
 * observeMember: what a member sync reports to its fleet rollout, from the
 * nodes and pods it read.
 */
import { describe, expect, it } from 'vitest';
import { brokeHealthGate, observeMember } from '#lib/fleet/observe-member.js';
import type { Node, Pod } from '#lib/reconcile/k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '#lib/reconcile/k8s/types.js';

const health = {
  maxRestartsPerPod: 3,
  failOnWaitingReasons: ['CrashLoopBackOff'],
};
const node = (name: string, ready = true, unschedulable = false): Node => ({
  metadata: { name },
  spec: { unschedulable },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const pod = (
  revision: string,
  opts: { ready?: boolean; restarts?: number; waiting?: string } = {}
): Pod => ({
  metadata: {
    name: `p-${revision}`,
    labels: { [CONTROLLER_REVISION_HASH_LABEL]: revision },
  },
  status: {
    conditions: [
      { type: 'Ready', status: opts.ready === false ? 'False' : 'True' },
    ],
    containerStatuses: [
      {
        name: 'c',
        image: 'i',
        imageID: '',
        ready: opts.ready !== false,
        restartCount: opts.restarts ?? 0,
        ...(opts.waiting && { state: { waiting: { reason: opts.waiting } } }),
      },
    ],
  },
});

describe('observeMember', () => {
  it('counts desired nodes, available pods of the revision, and failed nodes apart from broken ones', () => {
    // Prepare
    const nodes = [
      node('a'),
      node('b'),
      node('c'),
      node('d', false),
      node('e'),
      node('f', true, true),
    ];
    const byNode = new Map<string, Pod[]>([
      ['a', [pod('new')]],
      ['b', [pod('old')]],
      ['c', [pod('new', { ready: false, waiting: 'CrashLoopBackOff' })]],
      ['d', [pod('new', { ready: false, restarts: 9 })]],
      ['f', [pod('new', { ready: false, restarts: 4 })]],
    ]);
    const skipped = new Set(['e']);
    // Act
    const o = observeMember({
      nodes,
      byNode,
      placement: (n) => ({
        shouldRun: !skipped.has(n.metadata?.name ?? ''),
        shouldContinueRunning: true,
      }),
      revision: 'new',
      minReadySeconds: 0,
      health,
      nowMs: 5,
    });
    // Assess
    expect(o).toEqual({
      observedAtMs: 5,
      reachable: true,
      revision: 'new',
      desired: 5,
      updatedAvailable: 1,
      failedNodes: 1,
      excludedNodes: 2,
    });
  });

  it('tells a broken node by its taints when read without its status, as the product reads nodes', () => {
    // Prepare: the cache keeps names, labels and taints only.
    const taint = (key: string) => ({ key, effect: 'NoSchedule' });
    const nodes: Node[] = [
      { metadata: { name: 'a' }, spec: {} },
      {
        metadata: { name: 'b' },
        spec: { taints: [taint('node.kubernetes.io/not-ready')] },
      },
      {
        metadata: { name: 'c' },
        spec: { taints: [taint('node.kubernetes.io/unschedulable')] },
      },
      {
        metadata: { name: 'd' },
        spec: { taints: [taint('example.com/dedicated')] },
      },
    ];
    const crashing = () =>
      pod('new', { ready: false, waiting: 'CrashLoopBackOff' });
    const byNode = new Map<string, Pod[]>(
      ['a', 'b', 'c', 'd'].map((n) => [n, [crashing()]])
    );
    // Act
    const o = observeMember({
      nodes,
      byNode,
      placement: () => ({ shouldRun: true, shouldContinueRunning: true }),
      revision: 'new',
      minReadySeconds: 0,
      health,
      nowMs: 5,
    });
    // Assess
    expect(o).toMatchObject({ desired: 4, failedNodes: 2, excludedNodes: 2 });
  });

  it('judges restarts above the limit and listed waiting reasons only', () => {
    expect(brokeHealthGate(pod('x', { restarts: 3 }), health)).toBe(false);
    expect(brokeHealthGate(pod('x', { restarts: 4 }), health)).toBe(true);
    expect(
      brokeHealthGate(pod('x', { waiting: 'ContainerCreating' }), health)
    ).toBe(false);
    expect(
      brokeHealthGate(pod('x', { waiting: 'CrashLoopBackOff' }), health)
    ).toBe(true);
    expect(brokeHealthGate({ metadata: {} }, health)).toBe(false);
  });
});
