/**
 * Kruise's TestFilterDaemonPodsNodeToUpdate
 * (pkg/controller/daemonset/daemonset_update_test.go): the rolling update's
 * working set under a partition and a canary node selector.
 */
import { describe, expect, it } from 'vitest';
import { filterDaemonPodsNodeToUpdate } from '#lib/reconcile/advanced/filter-daemon-pods-node-to-update.js';
import {
  LIFECYCLE_STATE_LABEL,
  PREPARING_DELETE,
} from '#lib/reconcile/advanced/rollout-controls.js';
import type { DaemonSet, Node, Pod } from '#lib/reconcile/k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '#lib/reconcile/k8s/types.js';
import { newDaemonSet, newNode } from '../../../../helpers/builders.js';

const pod = (
  hash: string,
  extra: { deleting?: boolean; labels?: Record<string, string> } = {}
): Pod => ({
  metadata: {
    name: `p-${hash}-${Math.random().toString(36).slice(2, 7)}`,
    labels: { [CONTROLLER_REVISION_HASH_LABEL]: hash, ...extra.labels },
    ...(extra.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
});

const dsWith = (selector?: Record<string, string>): DaemonSet => {
  const ds = newDaemonSet('ds');
  ds.spec = {
    ...ds.spec,
    selector: ds.spec?.selector ?? {},
    template: ds.spec?.template ?? {},
    updateStrategy: {
      type: 'RollingUpdate',
      rollingUpdate: {
        rollingUpdateType: 'Standard',
        ...(selector ? { selector: { matchLabels: selector } } : {}),
      },
    },
  };
  return ds;
};

const canary = { 'node-type': 'canary' };

describe('filterDaemonPodsNodeToUpdate', () => {
  describe('TestFilterDaemonPodsNodeToUpdate', () => {
    it.each<{
      name: string;
      partition: number;
      selector?: Record<string, string>;
      pods: Record<string, Pod[]>;
      nodes: Node[];
      expectNodes: string[];
    }>([
      {
        name: 'Standard,partition=0',
        partition: 0,
        pods: { n1: [pod('v1')], n2: [pod('v2')], n3: [pod('v1')] },
        nodes: [newNode('n1'), newNode('n2'), newNode('n3')],
        expectNodes: ['n2', 'n3', 'n1'],
      },
      {
        name: 'Standard,partition=1',
        partition: 1,
        pods: { n1: [pod('v2')], n2: [pod('v1')], n3: [pod('v1')] },
        nodes: [newNode('n1'), newNode('n2'), newNode('n3')],
        expectNodes: ['n1', 'n3'],
      },
      {
        name: 'Standard,partition=1,selector=1',
        partition: 1,
        selector: canary,
        pods: {
          n1: [pod('v1')],
          n2: [pod('v2')],
          n3: [pod('v1')],
          n4: [pod('v1')],
        },
        nodes: [
          newNode('n1'),
          newNode('n2'),
          newNode('n3', canary),
          newNode('n4'),
        ],
        expectNodes: ['n2', 'n3'],
      },
      {
        name: 'Standard,partition=2,selector=3',
        partition: 2,
        selector: canary,
        pods: {
          n1: [pod('v1')],
          n2: [pod('v2')],
          n3: [pod('v1')],
          n4: [pod('v1')],
        },
        nodes: [
          newNode('n1', canary),
          newNode('n2'),
          newNode('n3', canary),
          newNode('n4', canary),
        ],
        expectNodes: ['n2', 'n4'],
      },
      {
        name: 'Standard,partition=0,selector=3,terminating',
        partition: 0,
        selector: canary,
        pods: {
          n1: [pod('v1')],
          n2: [pod('v2')],
          n3: [pod('v1', { deleting: true })],
          n4: [pod('v1')],
        },
        nodes: [
          newNode('n1', canary),
          newNode('n2'),
          newNode('n3', canary),
          newNode('n4'),
        ],
        expectNodes: ['n2', 'n3', 'n1'],
      },
    ])('$name', ({ partition, selector, pods, nodes, expectNodes }) => {
      // Act
      const got = filterDaemonPodsNodeToUpdate(
        dsWith(selector),
        nodes,
        'v2',
        new Map(Object.entries(pods)),
        partition
      );
      // Assess
      expect(got).toEqual(expectNodes);
    });
  });

  it('counts a node whose only old pod a preDelete hook holds as updating', () => {
    // Prepare
    const held = pod('v1', {
      labels: { [LIFECYCLE_STATE_LABEL]: PREPARING_DELETE },
    });
    const pods = new Map([
      ['n1', [pod('v1')]],
      ['n2', [held]],
    ]);
    // Act
    const got = filterDaemonPodsNodeToUpdate(
      dsWith(),
      [newNode('n1'), newNode('n2')],
      'v2',
      pods,
      1
    );
    // Assess
    expect(got).toEqual(['n2']);
  });

  it('leaves out nodes missing from the node list, and returns none when the partition covers all', () => {
    // Prepare
    const pods = new Map([
      ['n1', [pod('v1')]],
      ['gone', [pod('v1')]],
    ]);
    // Act
    const all = filterDaemonPodsNodeToUpdate(
      dsWith(),
      [newNode('n1')],
      'v2',
      pods,
      0
    );
    const none = filterDaemonPodsNodeToUpdate(
      dsWith(),
      [newNode('n1')],
      'v2',
      pods,
      5
    );
    // Assess
    expect(all).toEqual(['n1']);
    expect(none).toEqual([]);
  });

  it('counts a node with two old pods as updated (manage prunes it)', () => {
    // Prepare
    const pods = new Map([
      ['n1', [pod('v1'), pod('v1')]],
      ['n2', [pod('v1')]],
    ]);
    // Act
    const got = filterDaemonPodsNodeToUpdate(
      dsWith(),
      [newNode('n1'), newNode('n2')],
      'v2',
      pods,
      1
    );
    // Assess
    expect(got).toEqual(['n1']);
  });
});
