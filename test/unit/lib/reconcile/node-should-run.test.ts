import { describe, expect, it } from 'vitest';
import { nameOf } from '#lib/reconcile/k8s/meta.js';
import type {
  DaemonSet,
  Node,
  PodSpec,
  Taint,
  Toleration,
} from '#lib/reconcile/k8s/types.js';
import {
  daemonPlacement,
  newPod,
  nodeShouldRunDaemonPod,
  placementOnce,
} from '#lib/reconcile/node-should-run.js';
import {
  clone,
  makeNodes,
  newDaemonSet,
  newNode,
  simpleDaemonSetLabel,
  simpleDaemonSetLabel2,
  simpleNodeLabel,
  simpleNodeLabel2,
  updateStrategies,
} from '../../../helpers/builders.js';

// Fixtures of upstream daemon_controller_test.go.
const noScheduleTolerations: Toleration[] = [
  { key: 'dedicated', value: 'user1', effect: 'NoSchedule' },
];
const noScheduleTaints: Taint[] = [
  { key: 'dedicated', value: 'user1', effect: 'NoSchedule' },
];
const noExecuteTaints: Taint[] = [
  { key: 'dedicated', value: 'user1', effect: 'NoExecute' },
];
const nodeNotReady: Taint[] = [
  {
    key: 'node.kubernetes.io/not-ready',
    effect: 'NoExecute',
    timeAdded: '2024-01-01T00:00:00Z',
  },
];
const nodeUnreachable: Taint[] = [
  {
    key: 'node.kubernetes.io/unreachable',
    effect: 'NoExecute',
    timeAdded: '2024-01-01T00:00:00Z',
  },
];

const allocatableResources = (memory: string, cpu: string) => ({
  memory,
  cpu,
  pods: '100',
});

/** Upstream `resourcePodSpec` (nodeName '' means unset). */
const resourcePodSpec = (
  nodeName: string,
  memory: string,
  cpu: string
): PodSpec => ({
  ...(nodeName === '' ? {} : { nodeName }),
  containers: [
    { name: 'c', resources: { requests: allocatableResources(memory, cpu) } },
  ],
});

const hostPortSpec = (hostPort: number, nodeName?: string): PodSpec => ({
  ...(nodeName === undefined ? {} : { nodeName }),
  containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort }] }],
});

const requiredIn = (key: string, values: string[]): PodSpec['affinity'] => ({
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [
        { matchExpressions: [{ key, operator: 'In', values }] },
      ],
    },
  },
});

/** The bare DaemonSet of the TestNodeShouldRunDaemonPod table. */
const tableDaemonSet = (spec: PodSpec): DaemonSet => ({
  spec: {
    selector: { matchLabels: { ...simpleDaemonSetLabel } },
    template: { metadata: { labels: { ...simpleDaemonSetLabel } }, spec },
  },
});

/** Upstream `newDaemonSet(name)` with `mutate` applied to its pod spec. */
const daemonSet = (mutate: (spec: PodSpec) => void = () => {}): DaemonSet => {
  const ds = newDaemonSet('foo');
  const spec = ds.spec?.template.spec;
  if (spec) mutate(spec);
  return ds;
};

const withNode = (node: Node, mutate: (node: Node) => void): Node => {
  mutate(node);
  return node;
};

const decide = (node: Node, ds: DaemonSet): [boolean, boolean] => {
  const got = nodeShouldRunDaemonPod(node, ds);
  return [got.shouldRun, got.shouldContinueRunning];
};

describe('nodeShouldRunDaemonPod', () => {
  // podsOnNode is upstream's fixture of pods already bound to the node: the
  // decision never reads it (resources and host ports are the scheduler's).
  const table = [
    {
      idx: 0,
      name: 'ShouldRunDaemonPod',
      podsOnNode: 'none',
      spec: resourcePodSpec('', '50M', '0.5'),
      unschedulable: false,
      want: [true, true],
    },
    {
      idx: 1,
      name: 'InsufficientResourceError',
      podsOnNode: 'none',
      spec: resourcePodSpec('', '200M', '0.5'),
      unschedulable: false,
      want: [true, true],
    },
    {
      idx: 2,
      name: 'ErrPodNotMatchHostName',
      podsOnNode: 'none',
      spec: resourcePodSpec('other-node', '50M', '0.5'),
      unschedulable: false,
      want: [false, false],
    },
    {
      idx: 3,
      name: 'ErrPodNotFitsHostPorts',
      podsOnNode: 'one using hostPort 666',
      spec: hostPortSpec(666),
      unschedulable: false,
      want: [true, true],
    },
    {
      idx: 4,
      name: 'InsufficientResourceError',
      podsOnNode: 'one using hostPort 666 and 50M/0.5',
      spec: resourcePodSpec('', '100M', '0.5'),
      unschedulable: false,
      want: [true, true],
    },
    {
      idx: 5,
      name: 'ShouldRunDaemonPod',
      podsOnNode: 'one using hostPort 666 and 50M/0.5',
      spec: resourcePodSpec('', '50M', '0.5'),
      unschedulable: false,
      want: [true, true],
    },
    {
      idx: 6,
      name: 'ErrNodeSelectorNotMatch',
      podsOnNode: 'none',
      spec: { containers: [], nodeSelector: { ...simpleDaemonSetLabel2 } },
      unschedulable: false,
      want: [false, false],
    },
    {
      idx: 7,
      name: 'ShouldRunDaemonPod',
      podsOnNode: 'none',
      spec: { containers: [], nodeSelector: { ...simpleDaemonSetLabel } },
      unschedulable: false,
      want: [true, true],
    },
    {
      idx: 8,
      name: 'ErrPodAffinityNotMatch',
      podsOnNode: 'none',
      spec: { containers: [], affinity: requiredIn('type', ['test']) },
      unschedulable: false,
      want: [false, false],
    },
    {
      idx: 9,
      name: 'ShouldRunDaemonPod',
      podsOnNode: 'none',
      spec: { containers: [], affinity: requiredIn('type', ['production']) },
      unschedulable: false,
      want: [true, true],
    },
    {
      idx: 10,
      name: 'ShouldRunDaemonPodOnUnschedulableNode',
      podsOnNode: 'none',
      spec: resourcePodSpec('', '50M', '0.5'),
      unschedulable: true,
      want: [true, true],
    },
  ];
  const cases = table.flatMap((c) =>
    updateStrategies().map((s) => ({ ...c, strategy: s }))
  );

  it.each(cases)(
    'TestNodeShouldRunDaemonPod: [$idx] $name ($strategy.name)',
    ({ spec, unschedulable, strategy, want }) => {
      // Prepare
      const node = newNode('test-node', simpleDaemonSetLabel);
      node.status = {
        ...node.status,
        allocatable: allocatableResources('100M', '1'),
      };
      node.spec = { unschedulable };
      const ds = tableDaemonSet(clone(spec));
      if (ds.spec) ds.spec.updateStrategy = strategy.strategy;
      const before = clone(ds);
      // Act
      const got = decide(node, ds);
      // Assess
      expect(got).toEqual(want);
      expect(ds).toEqual(before);
    }
  );
});

describe('nodeShouldRunDaemonPod (placement predicates)', () => {
  // Upstream sync tests whose outcome is decided by placement alone: with no
  // daemon pods yet, a pod is created exactly on the nodes where shouldRun.
  it.each<{ name: string; ds: DaemonSet; nodes: Node[]; want: string[] }>([
    {
      name: 'TestSimpleDaemonSetLaunchesPods',
      ds: daemonSet(),
      nodes: makeNodes(0, 5),
      want: ['node-0', 'node-1', 'node-2', 'node-3', 'node-4'],
    },
    {
      name: 'TestNoNodesDoesNothing',
      ds: daemonSet(),
      nodes: [],
      want: [],
    },
    {
      name: 'TestOneNodeDaemonLaunchesPod',
      ds: daemonSet(),
      nodes: [newNode('only-node')],
      want: ['only-node'],
    },
    {
      name: 'TestNotReadyNodeDaemonDoesLaunchPod',
      ds: daemonSet(),
      nodes: [
        withNode(newNode('not-ready'), (n) => {
          n.status = { conditions: [{ type: 'Ready', status: 'False' }] };
        }),
      ],
      want: ['not-ready'],
    },
    {
      name: 'TestInsufficientCapacityNodeDaemonDoesNotUnscheduleRunningPod',
      ds: daemonSet((s) => {
        Object.assign(s, resourcePodSpec('too-much-mem', '75M', '75m'));
      }),
      nodes: [
        withNode(newNode('too-much-mem'), (n) => {
          n.status = { allocatable: allocatableResources('100M', '200m') };
        }),
      ],
      want: ['too-much-mem'],
    },
    {
      name: 'TestInsufficientCapacityNodeSufficientCapacityWithNodeLabelDaemonLaunchPod',
      ds: daemonSet((s) => {
        Object.assign(s, resourcePodSpec('', '50M', '75m'));
        s.nodeSelector = { ...simpleNodeLabel };
      }),
      nodes: [
        withNode(newNode('not-enough-resource'), (n) => {
          n.status = { allocatable: allocatableResources('10M', '20m') };
        }),
        withNode(newNode('enough-resource', simpleNodeLabel), (n) => {
          n.status = { allocatable: allocatableResources('100M', '200m') };
        }),
      ],
      want: ['enough-resource'],
    },
    {
      name: 'TestNetworkUnavailableNodeDaemonLaunchesPod',
      ds: daemonSet(),
      nodes: [
        withNode(newNode('network-unavailable'), (n) => {
          n.status = {
            conditions: [{ type: 'NetworkUnavailable', status: 'True' }],
          };
        }),
      ],
      want: ['network-unavailable'],
    },
    {
      name: 'TestNoPortConflictNodeDaemonLaunchesPod',
      ds: daemonSet((s) => {
        Object.assign(s, hostPortSpec(6662, 'no-port-conflict'));
      }),
      nodes: [newNode('no-port-conflict')],
      want: ['no-port-conflict'],
    },
    {
      name: 'TestSelectorDaemonLaunchesPods',
      ds: daemonSet((s) => {
        s.nodeSelector = { ...simpleNodeLabel };
      }),
      nodes: [...makeNodes(0, 4), ...makeNodes(4, 3, simpleNodeLabel)],
      want: ['node-4', 'node-5', 'node-6'],
    },
    {
      name: 'TestBadSelectorDaemonDoesNothing',
      ds: daemonSet((s) => {
        s.nodeSelector = { ...simpleNodeLabel2 };
      }),
      nodes: [...makeNodes(0, 4), ...makeNodes(4, 3, simpleNodeLabel)],
      want: [],
    },
    {
      name: 'TestNameDaemonSetLaunchesPods',
      ds: daemonSet((s) => {
        s.nodeName = 'node-0';
      }),
      nodes: makeNodes(0, 5),
      want: ['node-0'],
    },
    {
      name: 'TestBadNameDaemonSetDoesNothing',
      ds: daemonSet((s) => {
        s.nodeName = 'node-10';
      }),
      nodes: makeNodes(0, 5),
      want: [],
    },
    {
      name: 'TestNameAndSelectorDaemonSetLaunchesPods',
      ds: daemonSet((s) => {
        s.nodeSelector = { ...simpleNodeLabel };
        s.nodeName = 'node-6';
      }),
      nodes: [...makeNodes(0, 4), ...makeNodes(4, 3, simpleNodeLabel)],
      want: ['node-6'],
    },
    {
      name: 'TestInconsistentNameSelectorDaemonSetDoesNothing',
      ds: daemonSet((s) => {
        s.nodeSelector = { ...simpleNodeLabel };
        s.nodeName = 'node-0';
      }),
      nodes: [...makeNodes(0, 4), ...makeNodes(4, 3, simpleNodeLabel)],
      want: [],
    },
    {
      name: 'TestSelectorDaemonSetLaunchesPods',
      ds: daemonSet((s) => {
        s.nodeSelector = { ...simpleNodeLabel };
      }),
      nodes: [...makeNodes(0, 4), ...makeNodes(4, 3, simpleNodeLabel)],
      want: ['node-4', 'node-5', 'node-6'],
    },
    {
      name: 'TestNodeAffinityDaemonLaunchesPods',
      ds: daemonSet((s) => {
        s.affinity = requiredIn('color', [simpleNodeLabel.color]);
      }),
      nodes: [...makeNodes(0, 4), ...makeNodes(4, 3, simpleNodeLabel)],
      want: ['node-4', 'node-5', 'node-6'],
    },
    {
      name: 'TestPodIsNotDeletedByDaemonsetWithEmptyLabelSelector',
      ds: daemonSet((s) => {
        s.nodeSelector = { foo: 'bar' };
      }),
      nodes: [newNode('node1')],
      want: [],
    },
  ])('$name (predicate)', ({ ds, nodes, want }) => {
    // Act
    const placed = nodes
      .filter((node) => nodeShouldRunDaemonPod(node, ds).shouldRun)
      .map(nameOf);
    // Assess
    expect(placed).toEqual(want);
  });

  it('TestSelectorDaemonDeletesUnselectedPods (predicate): stops pods on unselected nodes', () => {
    // Prepare
    const ds = daemonSet((s) => {
      s.nodeSelector = { ...simpleNodeLabel };
    });
    const nodes = [...makeNodes(0, 5), ...makeNodes(5, 5, simpleNodeLabel)];
    // Act
    const got = nodes.map((node) => decide(node, ds));
    // Assess
    expect(got).toEqual([
      ...Array.from({ length: 5 }, () => [false, false]),
      ...Array.from({ length: 5 }, () => [true, true]),
    ]);
  });

  it('TestPortConflictWithSameDaemonPodDoesNotDeletePod (predicate): keeps the pod', () => {
    // Prepare
    const ds = daemonSet((s) => {
      Object.assign(s, hostPortSpec(666, 'port-conflict'));
    });
    // Act
    const got = decide(newNode('port-conflict'), ds);
    // Assess
    expect(got).toEqual([true, true]);
  });
});

describe('nodeShouldRunDaemonPod (taints and tolerations)', () => {
  const taint = (key: string, effect: string, value?: string): Taint => ({
    key,
    effect,
    ...(value === undefined ? {} : { value }),
  });
  const critical = (ds: DaemonSet): DaemonSet => {
    // Upstream setDaemonSetCritical: irrelevant to placement, kept for fidelity.
    ds.metadata = { ...ds.metadata, namespace: 'kube-system' };
    const spec = ds.spec?.template.spec;
    if (spec) spec.priority = 2_000_000_000;
    return ds;
  };

  it.each<{
    name: string;
    taints: Taint[];
    spec?: (spec: PodSpec) => void;
    ds?: (ds: DaemonSet) => DaemonSet;
    want: [boolean, boolean];
  }>([
    {
      name: 'TestNoScheduleTaintedDoesntEvicitRunningIntolerantPod (predicate)',
      taints: noScheduleTaints,
      want: [false, true],
    },
    {
      name: 'TestNoExecuteTaintedDoesEvicitRunningIntolerantPod (predicate)',
      taints: noExecuteTaints,
      want: [false, false],
    },
    {
      name: 'TestTaintedNodeDaemonDoesNotLaunchIntolerantPod (predicate)',
      taints: noScheduleTaints,
      want: [false, true],
    },
    {
      name: 'TestTaintedNodeDaemonLaunchesToleratePod (predicate)',
      taints: noScheduleTaints,
      spec: (s) => {
        s.tolerations = clone(noScheduleTolerations);
      },
      want: [true, true],
    },
    {
      name: 'TestNotReadyNodeDaemonLaunchesPod (predicate): not-ready NoExecute is tolerated automatically',
      taints: nodeNotReady,
      want: [true, true],
    },
    {
      name: 'TestUnreachableNodeDaemonLaunchesPod (predicate): unreachable NoExecute is tolerated automatically',
      taints: nodeUnreachable,
      want: [true, true],
    },
    {
      name: 'TestNodeDaemonLaunchesToleratePod (predicate): tolerations on an untainted node',
      taints: [],
      spec: (s) => {
        s.tolerations = clone(noScheduleTolerations);
      },
      want: [true, true],
    },
    {
      name: 'TestTaintPressureNodeDaemonLaunchesPod (predicate): pressure taints are tolerated automatically',
      taints: ['disk-pressure', 'memory-pressure', 'pid-pressure'].map((k) =>
        taint(`node.kubernetes.io/${k}`, 'NoSchedule')
      ),
      ds: critical,
      want: [true, true],
    },
    {
      name: 'tolerates the unschedulable taint automatically',
      taints: [taint('node.kubernetes.io/unschedulable', 'NoSchedule')],
      want: [true, true],
    },
    {
      name: 'does not tolerate network-unavailable without hostNetwork',
      taints: [taint('node.kubernetes.io/network-unavailable', 'NoSchedule')],
      want: [false, true],
    },
    {
      name: 'tolerates network-unavailable with hostNetwork',
      taints: [taint('node.kubernetes.io/network-unavailable', 'NoSchedule')],
      spec: (s) => {
        s.hostNetwork = true;
      },
      want: [true, true],
    },
    {
      name: 'does not tolerate not-ready NoSchedule (TaintNodesByCondition)',
      taints: [taint('node.kubernetes.io/not-ready', 'NoSchedule')],
      want: [false, true],
    },
    {
      name: 'ignores PreferNoSchedule',
      taints: [taint('dedicated', 'PreferNoSchedule', 'user1')],
      want: [true, true],
    },
    {
      name: 'ignores an unknown effect',
      taints: [taint('dedicated', 'Whatever')],
      want: [true, true],
    },
    {
      name: 'evicts when NoExecute is untolerated even if NoSchedule is tolerated',
      taints: [...noScheduleTaints, taint('b', 'NoExecute')],
      spec: (s) => {
        s.tolerations = clone(noScheduleTolerations);
      },
      want: [false, false],
    },
    {
      name: 'keeps running when only NoSchedule is untolerated',
      taints: [taint('a', 'NoSchedule'), taint('b', 'NoExecute')],
      spec: (s) => {
        s.tolerations = [{ key: 'b', operator: 'Exists' }];
      },
      want: [false, true],
    },
    {
      name: 'tolerationSeconds does not matter to the decision',
      taints: noExecuteTaints,
      spec: (s) => {
        s.tolerations = [
          { key: 'dedicated', operator: 'Exists', tolerationSeconds: 0 },
        ];
      },
      want: [true, true],
    },
    {
      name: 'an empty key with Exists tolerates every taint',
      taints: [...noScheduleTaints, ...noExecuteTaints],
      spec: (s) => {
        s.tolerations = [{ operator: 'Exists' }];
      },
      want: [true, true],
    },
    {
      name: 'affinity mismatch wins over taints',
      taints: noScheduleTaints,
      spec: (s) => {
        s.nodeSelector = { color: 'red' };
      },
      want: [false, false],
    },
  ])('$name', ({ taints, spec, ds: decorate, want }) => {
    // Prepare
    const node = withNode(newNode('tainted'), (n) => {
      n.spec = { taints: clone(taints) };
    });
    const base = daemonSet(spec);
    const ds = decorate === undefined ? base : decorate(base);
    // Act
    const got = decide(node, ds);
    // Assess
    expect(got).toEqual(want);
  });

  it('never matches a node through an affinity term that does not parse', () => {
    // Prepare
    const ds = daemonSet((s) => {
      s.affinity = requiredIn('size', []);
    });
    // Act
    const got = decide(newNode('n', { size: '4' }), ds);
    // Assess
    expect(got).toEqual([false, false]);
  });
});

describe('newPod (NewPod)', () => {
  it('builds the daemon pod from the template in the DaemonSet namespace', () => {
    // Prepare
    const ds = newDaemonSet('foo', 'ns');
    const before = clone(ds);
    // Act
    const pod = newPod(ds, 'node-1');
    // Assess
    expect(pod.metadata).toEqual({
      labels: simpleDaemonSetLabel,
      namespace: 'ns',
    });
    expect(pod.spec?.nodeName).toBe('node-1');
    expect(pod.spec?.containers).toEqual(ds.spec?.template.spec?.containers);
    expect(pod.spec?.tolerations?.map((t) => t.key)).toEqual([
      'node.kubernetes.io/not-ready',
      'node.kubernetes.io/unreachable',
      'node.kubernetes.io/disk-pressure',
      'node.kubernetes.io/memory-pressure',
      'node.kubernetes.io/pid-pressure',
      'node.kubernetes.io/unschedulable',
    ]);
    expect(ds).toEqual(before);
  });

  it('overrides the template nodeName with the node judged, like upstream', () => {
    // Prepare
    const ds = daemonSet((s) => {
      s.nodeName = 'node-0';
    });
    // Act / Assess
    expect(newPod(ds, 'node-1').spec?.nodeName).toBe('node-1');
    expect(newPod(ds).spec?.nodeName).toBe('node-0');
  });

  it('treats a DaemonSet without spec as an empty template', () => {
    // Prepare
    const ds: DaemonSet = { metadata: { name: 'x', namespace: 'ns' } };
    // Act
    const pod = newPod(ds);
    // Assess
    expect(pod.metadata).toEqual({ namespace: 'ns' });
    expect(pod.spec?.containers).toEqual([]);
    expect(pod.spec?.tolerations).toHaveLength(6);
    expect(decide(newNode('n'), ds)).toEqual([true, true]);
  });
});

describe('daemonPlacement and placementOnce (one judge per sync)', () => {
  /** Nodes that each fail, or pass, a different predicate. */
  const mixedNodes = (): Node[] => [
    newNode('fits', { size: '4', color: 'red' }),
    newNode('wrong-color', { size: '4', color: 'blue' }),
    newNode('wrong-size', { size: '8', color: 'red' }),
    withNode(newNode('no-schedule', { size: '4', color: 'red' }), (n) => {
      n.spec = { taints: clone(noScheduleTaints) };
    }),
    withNode(newNode('no-execute', { size: '4', color: 'red' }), (n) => {
      n.spec = { taints: clone(noExecuteTaints) };
    }),
    withNode(newNode('not-ready', { size: '4', color: 'red' }), (n) => {
      n.spec = { taints: clone(nodeNotReady) };
    }),
  ];
  const selective = (): DaemonSet =>
    daemonSet((s) => {
      s.nodeSelector = { color: 'red' };
      s.affinity = requiredIn('size', ['4']);
    });

  it('judges every node as nodeShouldRunDaemonPod does, rejections included', () => {
    // Prepare
    const ds = selective();
    const nodes = mixedNodes();
    // Act
    const judge = daemonPlacement(ds);
    const got = nodes.map((n) => judge(n));
    // Assess
    expect(got).toEqual(nodes.map((n) => nodeShouldRunDaemonPod(n, ds)));
    expect(got.map((f) => [f.shouldRun, f.shouldContinueRunning])).toEqual([
      [true, true],
      [false, false],
      [false, false],
      [false, true],
      [false, false],
      [true, true],
    ]);
    expect(got.map((f) => f.rejection?.predicate)).toEqual([
      undefined,
      'nodeAffinity',
      'nodeAffinity',
      'taint',
      'taint',
      undefined,
    ]);
  });

  it('answers a node object it judged with the same verdict, and judges a newer object of that node afresh', () => {
    // Prepare
    const judge = placementOnce(selective());
    const node = newNode('n1', { size: '4', color: 'red' });
    const tainted = withNode(clone(node), (n) => {
      n.spec = { taints: clone(noExecuteTaints) };
    });
    // Act
    const first = judge(node);
    const again = judge(node);
    const newer = judge(tainted);
    // Assess
    expect(again).toBe(first);
    expect(first.shouldRun).toBe(true);
    expect(newer).not.toBe(first);
    expect([newer.shouldRun, newer.shouldContinueRunning]).toEqual([
      false,
      false,
    ]);
  });
});
