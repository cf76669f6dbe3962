import { describe, expect, it } from 'vitest';
import {
  newPod,
  nodeShouldRunDaemonPod,
} from '#lib/reconcile/node-should-run.js';
import type { DaemonSet, PodSpec, Taint } from '#lib/reconcile/types.js';
import {
  newDaemonSet,
  newNode,
  simpleDaemonSetLabel,
  simpleDaemonSetLabel2,
  updateStrategies,
} from '../../../helpers/builders.js';

const resourcePodSpec = (
  nodeName: string,
  memory: string,
  cpu: string
): PodSpec => ({
  ...(nodeName ? { nodeName } : {}),
  containers: [{ name: 'c', resources: { requests: { memory, cpu } } }],
});

const dsWithSpec = (spec: PodSpec): DaemonSet => {
  const ds = newDaemonSet('ds');
  if (ds.spec) ds.spec.template.spec = spec;
  return ds;
};

const typeIn = (value: string): PodSpec => ({
  containers: [],
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          {
            matchExpressions: [
              { key: 'type', operator: 'In', values: [value] },
            ],
          },
        ],
      },
    },
  },
});

const hostPort = (): PodSpec => ({
  containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 666 }] }],
});

describe('nodeShouldRunDaemonPod', () => {
  // Upstream TestNodeShouldRunDaemonPod: pods already on the node (port
  // conflicts) and resources never matter; the node is labelled with
  // simpleDaemonSetLabel and has 100M / 1 CPU allocatable.
  const cases = [
    {
      name: 'ShouldRunDaemonPod',
      spec: resourcePodSpec('', '50M', '0.5'),
      unschedulable: false,
      want: [true, true],
    },
    {
      name: 'InsufficientResourceError',
      spec: resourcePodSpec('', '200M', '0.5'),
      unschedulable: false,
      want: [true, true],
    },
    {
      name: 'ErrPodNotMatchHostName',
      spec: resourcePodSpec('other-node', '50M', '0.5'),
      unschedulable: false,
      want: [false, false],
    },
    {
      name: 'ErrPodNotFitsHostPorts',
      spec: hostPort(),
      unschedulable: false,
      want: [true, true],
    },
    {
      name: 'InsufficientResourceError with port conflict',
      spec: resourcePodSpec('', '100M', '0.5'),
      unschedulable: false,
      want: [true, true],
    },
    {
      name: 'ErrNodeSelectorNotMatch',
      spec: { containers: [], nodeSelector: simpleDaemonSetLabel2 },
      unschedulable: false,
      want: [false, false],
    },
    {
      name: 'ShouldRunDaemonPod with nodeSelector',
      spec: { containers: [], nodeSelector: simpleDaemonSetLabel },
      unschedulable: false,
      want: [true, true],
    },
    {
      name: 'ErrPodAffinityNotMatch',
      spec: typeIn('test'),
      unschedulable: false,
      want: [false, false],
    },
    {
      name: 'ShouldRunDaemonPod with affinity',
      spec: typeIn('production'),
      unschedulable: false,
      want: [true, true],
    },
    {
      name: 'ShouldRunDaemonPodOnUnschedulableNode',
      spec: resourcePodSpec('', '50M', '0.5'),
      unschedulable: true,
      want: [true, true],
    },
  ];
  for (const {
    name: strategy,
    strategy: updateStrategy,
  } of updateStrategies()) {
    it.each(cases)(
      `TestNodeShouldRunDaemonPod (${strategy}): $name`,
      ({ spec, unschedulable, want }) => {
        // Prepare
        const node = newNode('test-node', simpleDaemonSetLabel);
        node.spec = { unschedulable };
        node.status = {
          ...node.status,
          allocatable: { memory: '100M', cpu: '1' },
        };
        const ds = dsWithSpec(spec);
        if (ds.spec) ds.spec.updateStrategy = updateStrategy;
        // Act
        const got = nodeShouldRunDaemonPod(node, ds);
        // Assess
        expect([got.shouldRun, got.shouldContinueRunning]).toEqual(want);
      }
    );
  }

  const taint = (key: string, effect: string, value?: string): Taint => ({
    key,
    effect,
    ...(value ? { value } : {}),
  });

  it.each([
    {
      name: 'untolerated NoSchedule keeps a running pod',
      taints: [taint('a', 'NoSchedule')],
      tolerations: [],
      want: [false, true],
    },
    {
      name: 'untolerated NoExecute evicts',
      taints: [taint('a', 'NoExecute')],
      tolerations: [],
      want: [false, false],
    },
    {
      name: 'PreferNoSchedule is ignored',
      taints: [taint('a', 'PreferNoSchedule')],
      tolerations: [],
      want: [true, true],
    },
    {
      name: 'tolerated NoSchedule',
      taints: [taint('a', 'NoSchedule', 'v')],
      tolerations: [
        { key: 'a', operator: 'Equal', value: 'v', effect: 'NoSchedule' },
      ],
      want: [true, true],
    },
    {
      name: 'NoSchedule tolerated, NoExecute not',
      taints: [taint('a', 'NoSchedule'), taint('b', 'NoExecute')],
      tolerations: [{ key: 'a', operator: 'Exists' }],
      want: [false, false],
    },
    {
      name: 'not-ready NoExecute is tolerated automatically (TestNotReadyNodeDaemonLaunchesPod)',
      taints: [taint('node.kubernetes.io/not-ready', 'NoExecute')],
      tolerations: [],
      want: [true, true],
    },
    {
      name: 'unreachable NoExecute is tolerated automatically (TestUnreachableNodeDaemonLaunchesPod)',
      taints: [taint('node.kubernetes.io/unreachable', 'NoExecute')],
      tolerations: [],
      want: [true, true],
    },
    {
      name: 'pressure taints are tolerated automatically (TestTaintPressureNodeDaemonLaunchesPod)',
      taints: ['disk-pressure', 'memory-pressure', 'pid-pressure'].map((k) =>
        taint(`node.kubernetes.io/${k}`, 'NoSchedule')
      ),
      tolerations: [],
      want: [true, true],
    },
    {
      name: 'not-ready NoSchedule is not tolerated automatically',
      taints: [taint('node.kubernetes.io/not-ready', 'NoSchedule')],
      tolerations: [],
      want: [false, true],
    },
    {
      name: 'network-unavailable is not tolerated without hostNetwork',
      taints: [taint('node.kubernetes.io/network-unavailable', 'NoSchedule')],
      tolerations: [],
      want: [false, true],
    },
  ])('taints: $name', ({ taints, tolerations, want }) => {
    // Prepare
    const node = newNode('n', simpleDaemonSetLabel);
    node.spec = { taints };
    const ds = dsWithSpec({ containers: [], tolerations });
    // Act
    const got = nodeShouldRunDaemonPod(node, ds);
    // Assess
    expect([got.shouldRun, got.shouldContinueRunning]).toEqual(want);
  });

  it('tolerates network-unavailable with hostNetwork (TestUnschedulableNodeDaemonDoesLaunchPod)', () => {
    // Prepare
    const node = newNode('n');
    node.spec = {
      unschedulable: true,
      taints: [
        taint('node.kubernetes.io/network-unavailable', 'NoSchedule'),
        taint('node.kubernetes.io/unschedulable', 'NoSchedule'),
      ],
    };
    const ds = dsWithSpec({ containers: [], hostNetwork: true });
    // Act
    const got = nodeShouldRunDaemonPod(node, ds);
    // Assess
    expect(got).toEqual({ shouldRun: true, shouldContinueRunning: true });
  });

  it('runs on the named node only (TestNameDaemonSetLaunchesPods)', () => {
    // Prepare
    const ds = dsWithSpec({ containers: [], nodeName: 'node-0' });
    // Act / Assess
    expect(nodeShouldRunDaemonPod(newNode('node-0'), ds).shouldRun).toBe(true);
    expect(nodeShouldRunDaemonPod(newNode('node-1'), ds).shouldRun).toBe(false);
  });

  it('treats a DaemonSet without spec as an empty template', () => {
    // Prepare
    const ds: DaemonSet = { metadata: { name: 'x', namespace: 'ns' } };
    // Act
    const pod = newPod(ds);
    // Assess
    expect(pod.metadata?.namespace).toBe('ns');
    expect(pod.spec?.tolerations).toHaveLength(6);
    expect(nodeShouldRunDaemonPod(newNode('n'), ds).shouldRun).toBe(true);
  });
});
