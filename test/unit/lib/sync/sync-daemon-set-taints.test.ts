/**
 * Ports the taint and toleration sync tests of upstream
 * pkg/controller/daemon/daemon_controller_test.go: untolerated NoSchedule
 * taints keep new pods away, untolerated NoExecute taints evict, and the
 * tolerations the controller adds let pods onto not-ready, unreachable and
 * pressured nodes.
 */
import { describe, expect, it } from 'vitest';
import {
  makeNodes,
  newNode,
  newPod,
  simpleDaemonSetLabel,
  updateStrategies,
} from '#test/helpers/builders.js';
import {
  expectSyncOk,
  newDaemonSetWith,
  templateSpec,
  withConditions,
  withTaints,
} from '#test/helpers/daemon-scenario.js';
import { addDaemonSet, newHarness } from '#test/helpers/harness.js';

const noScheduleTolerations = [
  { key: 'dedicated', value: 'user1', effect: 'NoSchedule' },
];
const noScheduleTaints = [
  { key: 'dedicated', value: 'user1', effect: 'NoSchedule' },
];
const noExecuteTaints = [
  { key: 'dedicated', value: 'user1', effect: 'NoExecute' },
];
const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

describe('syncDaemonSet', () => {
  describe('taints and tolerations', () => {
    it.each(updateStrategies())(
      'TestNoScheduleTaintedDoesntEvicitRunningIntolerantPod ($name): keeps a running pod on a NoSchedule-tainted node',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy, 'intolerant'));
        h.cluster.nodes.push(withTaints(newNode('tainted'), noScheduleTaints));
        const pod = newPod(
          'keep-running-me',
          'tainted',
          simpleDaemonSetLabel,
          ds
        );
        h.cluster.pods.push(pod);
        // Act
        await expectSyncOk(h, ds, { creates: 0, deletes: 0, events: 0 });
        // Assess
        expect(h.cluster.pods).toEqual([pod]);
      }
    );

    it.each(updateStrategies())(
      'TestNoExecuteTaintedDoesEvicitRunningIntolerantPod ($name): deletes a running pod from a NoExecute-tainted node',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy, 'intolerant'));
        h.cluster.nodes.push(withTaints(newNode('tainted'), noExecuteTaints));
        h.cluster.pods.push(
          newPod('stop-running-me', 'tainted', simpleDaemonSetLabel, ds)
        );
        // Act
        await expectSyncOk(h, ds, { creates: 0, deletes: 1, events: 0 });
        // Assess
        expect(h.cluster.pods).toEqual([]);
      }
    );

    it.each(updateStrategies())(
      'TestTaintedNodeDaemonDoesNotLaunchIntolerantPod ($name): creates nothing on a node with an untolerated NoSchedule taint',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy, 'intolerant'));
        h.cluster.nodes.push(withTaints(newNode('tainted'), noScheduleTaints));
        // Act / Assess
        await expectSyncOk(h, ds, { creates: 0, deletes: 0, events: 0 });
      }
    );

    it.each(updateStrategies())(
      'TestTaintedNodeDaemonLaunchesToleratePod ($name): launches a pod on a tainted node the template tolerates',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = newDaemonSetWith(strategy, 'tolerate');
        templateSpec(ds).tolerations = structuredClone(noScheduleTolerations);
        addDaemonSet(h, ds);
        h.cluster.nodes.push(withTaints(newNode('tainted'), noScheduleTaints));
        // Act / Assess
        await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
      }
    );

    it.each(updateStrategies())(
      'TestNotReadyNodeDaemonLaunchesPod ($name): launches a pod on a not-ready:NoExecute node through the automatic toleration',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy, 'simple'));
        const node = withTaints(newNode('tainted'), [
          {
            key: 'node.kubernetes.io/not-ready',
            effect: 'NoExecute',
            timeAdded: '2026-01-01T00:00:00Z',
          },
        ]);
        h.cluster.nodes.push(
          withConditions(node, [{ type: 'Ready', status: 'False' }])
        );
        // Act
        await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
        // Assess
        expect(h.cluster.pods[0]?.spec?.tolerations).toContainEqual({
          key: 'node.kubernetes.io/not-ready',
          operator: 'Exists',
          effect: 'NoExecute',
        });
      }
    );

    it.each(updateStrategies())(
      'TestUnreachableNodeDaemonLaunchesPod ($name): launches a pod on an unreachable:NoExecute node',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy, 'simple'));
        const node = withTaints(newNode('tainted'), [
          {
            key: 'node.kubernetes.io/unreachable',
            effect: 'NoExecute',
            timeAdded: '2026-01-01T00:00:00Z',
          },
        ]);
        h.cluster.nodes.push(
          withConditions(node, [{ type: 'Ready', status: 'Unknown' }])
        );
        // Act / Assess
        await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
      }
    );

    it.each(updateStrategies())(
      'TestNodeDaemonLaunchesToleratePod ($name): launches a pod with tolerations on an untainted node',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = newDaemonSetWith(strategy, 'tolerate');
        templateSpec(ds).tolerations = structuredClone(noScheduleTolerations);
        addDaemonSet(h, ds);
        h.cluster.nodes.push(...makeNodes(0, 1));
        // Act / Assess
        await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
      }
    );

    it.each(updateStrategies())(
      'TestTaintPressureNodeDaemonLaunchesPod ($name): launches a critical pod on a node under disk, memory and PID pressure',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = newDaemonSetWith(strategy, 'critical', 'kube-system');
        templateSpec(ds).priority = SYSTEM_CRITICAL_PRIORITY;
        addDaemonSet(h, ds);
        const node = withConditions(newNode('resources-pressure'), [
          { type: 'DiskPressure', status: 'True' },
          { type: 'MemoryPressure', status: 'True' },
          { type: 'PIDPressure', status: 'True' },
        ]);
        h.cluster.nodes.push(
          withTaints(node, [
            { key: 'node.kubernetes.io/disk-pressure', effect: 'NoSchedule' },
            { key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' },
            { key: 'node.kubernetes.io/pid-pressure', effect: 'NoSchedule' },
          ])
        );
        // Act
        await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
        // Assess
        expect(h.cluster.pods[0]?.metadata?.namespace).toBe('kube-system');
      }
    );
  });
});
