/**
 * Ports the placement sync tests of upstream
 * pkg/controller/daemon/daemon_controller_test.go: which nodes get a daemon
 * pod, counted per sync as upstream's `expectSyncDaemonSets` does.
 */
import { describe, expect, it } from 'vitest';
import {
  makeNodes,
  makePods,
  newNode,
  newPod,
  simpleDaemonSetLabel,
  simpleDaemonSetLabel2,
  simpleNodeLabel,
  simpleNodeLabel2,
  updateStrategies,
} from '#test/helpers/builders.js';
import {
  daemonPodsByNode,
  expectSyncOk,
  newDaemonSetWith,
  podCountsByNode,
  resourcePodSpec,
  templateSpec,
  withAllocatable,
  withConditions,
} from '#test/helpers/daemon-scenario.js';
import { addDaemonSet, newHarness } from '#test/helpers/harness.js';

describe('syncDaemonSet', () => {
  describe('placement', () => {
    it.each(updateStrategies())(
      'TestSimpleDaemonSetLaunchesPods ($name): creates one pod per node',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy));
        h.cluster.nodes.push(...makeNodes(0, 5));
        // Act
        await expectSyncOk(h, ds, { creates: 5, deletes: 0, events: 0 });
        // Assess
        expect(podCountsByNode(h, ds)).toEqual({
          'node-0': 1,
          'node-1': 1,
          'node-2': 1,
          'node-3': 1,
          'node-4': 1,
        });
      }
    );

    it.each(updateStrategies())(
      'TestSimpleDaemonSetScheduleDaemonSetPodsLaunchesPods ($name): pins each pod to its node by node affinity, leaving nodeName empty',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy));
        h.cluster.nodes.push(...makeNodes(0, 5));
        // Act
        await expectSyncOk(h, ds, { creates: 5, deletes: 0, events: 0 });
        // Assess
        const targets = h.cluster.pods.map((pod) => {
          expect(pod.spec?.nodeName ?? '').toBe('');
          const terms =
            pod.spec?.affinity?.nodeAffinity
              ?.requiredDuringSchedulingIgnoredDuringExecution
              ?.nodeSelectorTerms;
          expect(terms).toHaveLength(1);
          expect(terms?.[0]?.matchFields).toHaveLength(1);
          const field = terms?.[0]?.matchFields?.[0];
          expect(field).toMatchObject({ key: 'metadata.name', operator: 'In' });
          expect(field?.values).toHaveLength(1);
          return field?.values?.[0];
        });
        expect(targets.sort()).toEqual(
          h.cluster.nodes.map((n) => n.metadata?.name)
        );
      }
    );

    it.each(updateStrategies())(
      'TestNoNodesDoesNothing ($name): creates nothing without nodes',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy));
        // Act
        await expectSyncOk(h, ds, { creates: 0, deletes: 0, events: 0 });
        // Assess
        expect(h.cluster.pods).toEqual([]);
      }
    );

    it.each(updateStrategies())(
      'TestOneNodeDaemonLaunchesPod ($name): launches one pod in a one-node cluster',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy));
        h.cluster.nodes.push(newNode('only-node'));
        // Act
        await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
        // Assess
        expect(podCountsByNode(h, ds)).toEqual({ 'only-node': 1 });
      }
    );

    it.each(updateStrategies())(
      'TestNotReadyNodeDaemonDoesLaunchPod ($name): launches a pod on a node whose Ready condition is False',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy));
        h.cluster.nodes.push(
          withConditions(newNode('not-ready'), [
            { type: 'Ready', status: 'False' },
          ])
        );
        // Act / Assess
        await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
      }
    );

    it.each(updateStrategies())(
      'TestInsufficientCapacityNodeDaemonDoesNotUnscheduleRunningPod ($name): creates a pod regardless of node capacity and leaves the other pod alone',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const podSpec = resourcePodSpec('too-much-mem', '75M', '75m');
        const ds = newDaemonSetWith(strategy);
        if (ds.spec) ds.spec.template.spec = structuredClone(podSpec);
        addDaemonSet(h, ds);
        h.cluster.nodes.push(
          withAllocatable(newNode('too-much-mem'), '100M', '200m')
        );
        // Upstream's pod has a spec only: no labels, owner or namespace.
        const foreign = { spec: structuredClone(podSpec) };
        h.cluster.pods.push(foreign);
        // Act
        await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
        // Assess
        expect(h.cluster.pods).toContain(foreign);
      }
    );

    it('TestInsufficientCapacityNodeSufficientCapacityWithNodeLabelDaemonLaunchPod: lets the node selector, not capacity, decide', async () => {
      // Prepare
      const h = newHarness();
      const ds = newDaemonSetWith({ type: 'OnDelete' });
      if (ds.spec) {
        ds.spec.template.spec = {
          ...resourcePodSpec('', '50M', '75m'),
          nodeSelector: { ...simpleNodeLabel },
        };
      }
      addDaemonSet(h, ds);
      h.cluster.nodes.push(
        withAllocatable(newNode('not-enough-resource'), '10M', '20m'),
        withAllocatable(
          newNode('enough-resource', simpleNodeLabel),
          '100M',
          '200m'
        )
      );
      // Act
      await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
      // Assess: no event for insufficient resources either
      expect(h.events.events).toEqual([]);
      expect(podCountsByNode(h, ds)).toEqual({ 'enough-resource': 1 });
    });

    it.each(updateStrategies())(
      'TestNetworkUnavailableNodeDaemonLaunchesPod ($name): launches a pod on a node with NetworkUnavailable condition',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy, 'simple'));
        h.cluster.nodes.push(
          withConditions(newNode('network-unavailable'), [
            { type: 'NetworkUnavailable', status: 'True' },
          ])
        );
        // Act / Assess
        await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
      }
    );

    it.each(updateStrategies())(
      'TestPortConflictWithSameDaemonPodDoesNotDeletePod ($name): keeps its own pod that uses the host port',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = newDaemonSetWith(strategy);
        if (ds.spec) {
          ds.spec.template.spec = {
            nodeName: 'port-conflict',
            containers: [
              { name: 'foo', ports: [{ containerPort: 0, hostPort: 666 }] },
            ],
          };
        }
        addDaemonSet(h, ds);
        h.cluster.nodes.push(newNode('port-conflict'));
        const pod = newPod('foo-', 'port-conflict', simpleDaemonSetLabel, ds);
        h.cluster.pods.push(pod);
        // Act
        await expectSyncOk(h, ds, { creates: 0, deletes: 0, events: 0 });
        // Assess
        expect(h.cluster.pods).toEqual([pod]);
      }
    );

    it.each(updateStrategies())(
      'TestNoPortConflictNodeDaemonLaunchesPod ($name): launches a pod beside a pod using another host port',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = newDaemonSetWith(strategy);
        if (ds.spec) {
          ds.spec.template.spec = {
            nodeName: 'no-port-conflict',
            containers: [
              { name: 'foo', ports: [{ containerPort: 0, hostPort: 6662 }] },
            ],
          };
        }
        addDaemonSet(h, ds);
        h.cluster.nodes.push(newNode('no-port-conflict'));
        h.cluster.pods.push({
          spec: {
            nodeName: 'no-port-conflict',
            containers: [
              { name: 'foo', ports: [{ containerPort: 0, hostPort: 6661 }] },
            ],
          },
        });
        // Act / Assess
        await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
      }
    );

    it.each(updateStrategies())(
      'TestSelectorDaemonLaunchesPods ($name): launches pods only on nodes matching the node selector',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = newDaemonSetWith(strategy);
        templateSpec(ds).nodeSelector = { ...simpleNodeLabel };
        addDaemonSet(h, ds);
        h.cluster.nodes.push(
          ...makeNodes(0, 4),
          ...makeNodes(4, 3, simpleNodeLabel)
        );
        // Act
        await expectSyncOk(h, ds, { creates: 3, deletes: 0, events: 0 });
        // Assess
        expect(podCountsByNode(h, ds)).toEqual({
          'node-4': 1,
          'node-5': 1,
          'node-6': 1,
        });
      }
    );

    it.each(updateStrategies())(
      'TestSelectorDaemonDeletesUnselectedPods ($name): deletes pods on unselected nodes, releases pods it no longer selects',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = newDaemonSetWith(strategy);
        templateSpec(ds).nodeSelector = { ...simpleNodeLabel };
        addDaemonSet(h, ds);
        h.cluster.nodes.push(
          ...makeNodes(0, 5),
          ...makeNodes(5, 5, simpleNodeLabel)
        );
        const other = simpleDaemonSetLabel2;
        const released = [
          newPod('node-0-', 'node-0', other, ds),
          newPod('node-0-', 'node-0', other, ds),
          newPod('node-1-', 'node-1', other, ds),
        ];
        h.cluster.pods.push(
          ...released,
          ...[1, 2, 3].map(() =>
            newPod('node-1-', 'node-1', simpleDaemonSetLabel, ds)
          ),
          newPod('node-4-', 'node-4', simpleDaemonSetLabel, ds)
        );
        // Act
        await expectSyncOk(h, ds, { creates: 5, deletes: 4, events: 0 });
        // Assess
        expect(podCountsByNode(h, ds)).toEqual({
          'node-5': 1,
          'node-6': 1,
          'node-7': 1,
          'node-8': 1,
          'node-9': 1,
        });
        for (const pod of released) {
          const left = h.cluster.pods.find(
            (p) => p.metadata?.uid === pod.metadata?.uid
          );
          expect(left?.metadata?.ownerReferences).toEqual([]);
        }
      }
    );

    it.each(updateStrategies())(
      'TestSelectorDaemonDealsWithExistingPods ($name): creates on selected nodes without pods and deletes extras and misplaced pods',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = newDaemonSetWith(strategy);
        templateSpec(ds).nodeSelector = { ...simpleNodeLabel };
        addDaemonSet(h, ds);
        h.cluster.nodes.push(
          ...makeNodes(0, 5),
          ...makeNodes(5, 5, simpleNodeLabel)
        );
        const other = simpleDaemonSetLabel2;
        const add = (
          node: string,
          labels: Record<string, string>,
          n: number
        ) => {
          h.cluster.pods.push(...makePods(node, labels, ds, n));
        };
        add('node-0', simpleDaemonSetLabel, 1);
        add('node-1', simpleDaemonSetLabel, 3);
        add('node-1', other, 2);
        add('node-2', simpleDaemonSetLabel, 4);
        add('node-6', simpleDaemonSetLabel, 13);
        add('node-7', other, 4);
        add('node-9', simpleDaemonSetLabel, 1);
        add('node-9', other, 1);
        // Act
        await expectSyncOk(h, ds, { creates: 3, deletes: 20, events: 0 });
        // Assess
        expect(podCountsByNode(h, ds)).toEqual({
          'node-5': 1,
          'node-6': 1,
          'node-7': 1,
          'node-8': 1,
          'node-9': 1,
        });
      }
    );

    it.each(updateStrategies())(
      'TestBadSelectorDaemonDoesNothing ($name): creates nothing when the node selector matches no node',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        h.cluster.nodes.push(
          ...makeNodes(0, 4),
          ...makeNodes(4, 3, simpleNodeLabel)
        );
        const ds = newDaemonSetWith(strategy);
        templateSpec(ds).nodeSelector = { ...simpleNodeLabel2 };
        addDaemonSet(h, ds);
        // Act / Assess
        await expectSyncOk(h, ds, { creates: 0, deletes: 0, events: 0 });
      }
    );

    it.each(updateStrategies())(
      'TestNameDaemonSetLaunchesPods ($name): launches a pod only on the node the template names',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = newDaemonSetWith(strategy);
        templateSpec(ds).nodeName = 'node-0';
        addDaemonSet(h, ds);
        h.cluster.nodes.push(...makeNodes(0, 5));
        // Act
        await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
        // Assess
        expect(podCountsByNode(h, ds)).toEqual({ 'node-0': 1 });
      }
    );

    it.each(updateStrategies())(
      'TestBadNameDaemonSetDoesNothing ($name): creates nothing when the named node does not exist',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = newDaemonSetWith(strategy);
        templateSpec(ds).nodeName = 'node-10';
        addDaemonSet(h, ds);
        h.cluster.nodes.push(...makeNodes(0, 5));
        // Act / Assess
        await expectSyncOk(h, ds, { creates: 0, deletes: 0, events: 0 });
      }
    );

    it.each(updateStrategies())(
      'TestNameAndSelectorDaemonSetLaunchesPods ($name): launches a pod on the named node when it also matches the selector',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = newDaemonSetWith(strategy);
        templateSpec(ds).nodeSelector = { ...simpleNodeLabel };
        templateSpec(ds).nodeName = 'node-6';
        addDaemonSet(h, ds);
        h.cluster.nodes.push(
          ...makeNodes(0, 4),
          ...makeNodes(4, 3, simpleNodeLabel)
        );
        // Act
        await expectSyncOk(h, ds, { creates: 1, deletes: 0, events: 0 });
        // Assess
        expect(podCountsByNode(h, ds)).toEqual({ 'node-6': 1 });
      }
    );

    it.each(updateStrategies())(
      'TestInconsistentNameSelectorDaemonSetDoesNothing ($name): creates nothing when the named node does not match the selector',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = newDaemonSetWith(strategy);
        templateSpec(ds).nodeSelector = { ...simpleNodeLabel };
        templateSpec(ds).nodeName = 'node-0';
        addDaemonSet(h, ds);
        h.cluster.nodes.push(
          ...makeNodes(0, 4),
          ...makeNodes(4, 3, simpleNodeLabel)
        );
        // Act / Assess
        await expectSyncOk(h, ds, { creates: 0, deletes: 0, events: 0 });
      }
    );

    it('TestSelectorDaemonSetLaunchesPods: launches pods on all nodes matching the selector', async () => {
      // Prepare
      const h = newHarness();
      const ds = newDaemonSetWith({ type: 'OnDelete' });
      templateSpec(ds).nodeSelector = { ...simpleNodeLabel };
      addDaemonSet(h, ds);
      h.cluster.nodes.push(
        ...makeNodes(0, 4),
        ...makeNodes(4, 3, simpleNodeLabel)
      );
      // Act / Assess
      await expectSyncOk(h, ds, { creates: 3, deletes: 0, events: 0 });
    });

    it.each(updateStrategies())(
      'TestNodeAffinityDaemonLaunchesPods ($name): launches pods on nodes matching required node affinity, replacing its terms with the node pin',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = newDaemonSetWith(strategy);
        templateSpec(ds).affinity = {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [
                    { key: 'color', operator: 'In', values: ['blue'] },
                  ],
                },
              ],
            },
          },
        };
        addDaemonSet(h, ds);
        h.cluster.nodes.push(
          ...makeNodes(0, 4),
          ...makeNodes(4, 3, simpleNodeLabel)
        );
        // Act
        await expectSyncOk(h, ds, { creates: 3, deletes: 0, events: 0 });
        // Assess
        const byNode = daemonPodsByNode(h, ds);
        expect([...byNode.keys()].sort()).toEqual([
          'node-4',
          'node-5',
          'node-6',
        ]);
        for (const [node, [pod]] of byNode) {
          expect(
            pod?.spec?.affinity?.nodeAffinity
              ?.requiredDuringSchedulingIgnoredDuringExecution
          ).toEqual({
            nodeSelectorTerms: [
              {
                matchFields: [
                  { key: 'metadata.name', operator: 'In', values: [node] },
                ],
              },
            ],
          });
        }
      }
    );
  });
});
