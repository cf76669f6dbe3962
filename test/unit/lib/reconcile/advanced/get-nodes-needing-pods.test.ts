/**
 * Kruise's TestGetMaxCreateNum (pkg/controller/daemonset/daemonset_util_test.go):
 * progressive creation under a partition, case by case.
 */
import { describe, expect, it } from 'vitest';
import { getNodesNeedingPods } from '#lib/reconcile/advanced/get-nodes-needing-pods.js';

describe('getNodesNeedingPods', () => {
  describe('TestGetMaxCreateNum', () => {
    it.each([
      {
        name: 'no changes applied on daemonset, all pods are new version',
        newPodsNum: 10,
        total: 10,
        partition: 0,
        progressively: false,
        nodesNeedingPods: [],
        expect: [],
      },
      {
        name: 'create daemonset step1: create a daemonset, partition=10',
        newPodsNum: 0,
        total: 10,
        partition: 10,
        progressively: true,
        nodesNeedingPods: [
          'node-0',
          'node-1',
          'node-2',
          'node-3',
          'node-4',
          'node-5',
          'node-6',
          'node-7',
          'node-8',
          'node-9',
        ],
        expect: [],
      },
      {
        name: 'create daemonset step2: decrease the partition, partition=9',
        newPodsNum: 0,
        total: 10,
        partition: 9,
        progressively: true,
        nodesNeedingPods: [
          'node-0',
          'node-1',
          'node-2',
          'node-3',
          'node-4',
          'node-5',
          'node-6',
          'node-7',
          'node-8',
          'node-9',
        ],
        expect: ['node-0'],
      },
      {
        name: 'create daemonset step3: decrease the partition, partition=5',
        newPodsNum: 1,
        total: 10,
        partition: 5,
        progressively: true,
        nodesNeedingPods: [
          'node-1',
          'node-2',
          'node-3',
          'node-4',
          'node-5',
          'node-6',
          'node-7',
          'node-8',
          'node-9',
        ],
        expect: ['node-1', 'node-2', 'node-3', 'node-4'],
      },
      {
        name: 'create daemonset step4: importing 2 new nodes(node-10, node-11), partition=5',
        newPodsNum: 5,
        total: 12,
        partition: 5,
        progressively: true,
        nodesNeedingPods: [
          'node-5',
          'node-6',
          'node-7',
          'node-8',
          'node-9',
          'node-10',
          'node-11',
        ],
        expect: ['node-10', 'node-11'],
      },
      {
        name: 'create daemonset step5: offline 3 nodes(node-4, node-8, node-11), partition=5',
        newPodsNum: 4,
        total: 9,
        partition: 5,
        progressively: true,
        nodesNeedingPods: ['node-5', 'node-6', 'node-7', 'node-9', 'node-10'],
        expect: [],
      },
      {
        name: 'create daemonset step6: decrease the partition, partition=0',
        newPodsNum: 4,
        total: 9,
        partition: 0,
        progressively: true,
        nodesNeedingPods: ['node-5', 'node-6', 'node-7', 'node-9', 'node-10'],
        expect: ['node-10', 'node-5', 'node-6', 'node-7', 'node-9'],
      },
      {
        name: 'create daemonset step7: importing 3 nodes, partition=0',
        newPodsNum: 9,
        total: 12,
        partition: 0,
        progressively: true,
        nodesNeedingPods: ['node-12', 'node-13', 'node-14'],
        expect: ['node-12', 'node-13', 'node-14'],
      },
      {
        name: 'update daemonset step1: update spec and set partition=10',
        newPodsNum: 0,
        total: 10,
        partition: 10,
        progressively: false,
        nodesNeedingPods: [],
        expect: [],
      },
      {
        name: 'update daemonset step2: decrease partition and pod has not been deleted by rolling update method',
        newPodsNum: 0,
        total: 10,
        partition: 9,
        progressively: false,
        nodesNeedingPods: [],
        expect: [],
      },
      {
        name: 'update daemonset step3: decrease partition and pod has been deleted by rolling update method',
        newPodsNum: 0,
        total: 10,
        partition: 9,
        progressively: false,
        nodesNeedingPods: ['node-1'],
        expect: ['node-1'],
      },
      {
        name: 'update daemonset step4: keep decreasing partition and pod has not been deleted by rolling update method',
        newPodsNum: 1,
        total: 10,
        partition: 5,
        progressively: false,
        nodesNeedingPods: [],
        expect: [],
      },
      {
        name: 'update daemonset step5: keep decreasing partition and pod has been deleted by rolling update method',
        newPodsNum: 1,
        total: 10,
        partition: 5,
        progressively: false,
        nodesNeedingPods: ['node-2', 'node-3', 'node-4', 'node-5'],
        expect: ['node-2', 'node-3', 'node-4', 'node-5'],
      },
      {
        name: 'update daemonset step6: importing 2 new node',
        newPodsNum: 5,
        total: 12,
        partition: 5,
        progressively: false,
        nodesNeedingPods: ['node-11', 'node-12'],
        expect: ['node-11', 'node-12'],
      },
      {
        name: 'update daemonset step7: keep decreasing partition and pod has not been deleted by rolling update method',
        newPodsNum: 7,
        total: 12,
        partition: 0,
        progressively: false,
        nodesNeedingPods: [],
        expect: [],
      },
      {
        name: 'update daemonset step7: keep decreasing partition and pod has been deleted by rolling update method',
        newPodsNum: 7,
        total: 12,
        partition: 0,
        progressively: false,
        nodesNeedingPods: ['node-6', 'node-7', 'node-8', 'node-9', 'node-10'],
        expect: ['node-10', 'node-6', 'node-7', 'node-8', 'node-9'],
      },
      {
        name: 'update daemonset selector step1: update node selector and desire number has changed',
        newPodsNum: 0,
        total: 20,
        partition: 20,
        progressively: false,
        nodesNeedingPods: [],
        expect: [],
      },
      {
        name: 'update daemonset selector step2: decrease partition',
        newPodsNum: 0,
        total: 20,
        partition: 15,
        progressively: true,
        nodesNeedingPods: [
          'node-11',
          'node-12',
          'node-13',
          'node-14',
          'node-15',
          'node-16',
          'node-17',
          'node-18',
          'node-19',
          'node-20',
        ],
        expect: ['node-11', 'node-12', 'node-13', 'node-14', 'node-15'],
      },
      {
        name: 'update daemonset selector step3: decrease partition',
        newPodsNum: 5,
        total: 20,
        partition: 10,
        progressively: true,
        nodesNeedingPods: [
          'node-16',
          'node-17',
          'node-18',
          'node-19',
          'node-20',
        ],
        expect: ['node-16', 'node-17', 'node-18', 'node-19', 'node-20'],
      },
      {
        name: 'bad case 1: partition is set too large',
        newPodsNum: 10,
        total: 10,
        partition: 100,
        progressively: false,
        nodesNeedingPods: [],
        expect: [],
      },
      {
        name: 'bad case 2: partition is set too large when create daemonset',
        newPodsNum: 5,
        total: 10,
        partition: 100,
        progressively: true,
        nodesNeedingPods: [
          'node-5',
          'node-6',
          'node-7',
          'node-8',
          'node-9',
          'node-10',
        ],
        expect: [],
      },
      {
        name: 'bad case 3: an old pod was deleted manually in rolling update',
        newPodsNum: 5,
        total: 10,
        partition: 5,
        progressively: false,
        nodesNeedingPods: ['node-6'],
        expect: ['node-6'],
      },
      {
        name: 'bad case 4: an old pod was deleted manually in rolling update and new pod has created',
        newPodsNum: 6,
        total: 10,
        partition: 5,
        progressively: false,
        nodesNeedingPods: [],
        expect: [],
      },
    ])(
      '$name',
      ({
        newPodsNum,
        total,
        partition,
        progressively,
        nodesNeedingPods,
        expect: want,
      }) => {
        // Act
        const got = getNodesNeedingPods(
          newPodsNum,
          total,
          partition,
          progressively,
          nodesNeedingPods
        );
        // Assess
        expect(got).toEqual(want);
      }
    );
  });

  it('does not reorder the caller’s list', () => {
    // Prepare
    const nodes = ['node-5', 'node-10'];
    // Act
    getNodesNeedingPods(0, 2, 0, true, nodes);
    // Assess
    expect(nodes).toEqual(['node-5', 'node-10']);
  });
});
