import { describe, expect, it } from 'vitest';
import {
  getTargetNodeName,
  replaceDaemonSetPodNodeNameNodeAffinity,
  requiredNodeAffinityMatches,
} from '#lib/reconcile/node-affinity.js';
import type {
  Affinity,
  NodeSelectorTerm,
  Pod,
  PodSpec,
} from '#lib/reconcile/types.js';
import { newNode } from '../../../helpers/builders.js';

const withTerms = (terms: NodeSelectorTerm[]): PodSpec => ({
  containers: [],
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: terms,
      },
    },
  },
});

const node = newNode('node-1', { zone: 'a', size: '4', color: 'blue' });

describe('requiredNodeAffinityMatches (GetRequiredNodeAffinity(pod).Match)', () => {
  it.each<{ name: string; terms: NodeSelectorTerm[]; want: boolean }>([
    {
      name: 'In',
      terms: [
        {
          matchExpressions: [
            { key: 'zone', operator: 'In', values: ['a', 'b'] },
          ],
        },
      ],
      want: true,
    },
    {
      name: 'NotIn',
      terms: [
        {
          matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }],
        },
      ],
      want: false,
    },
    {
      name: 'Exists',
      terms: [{ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }],
      want: true,
    },
    {
      name: 'DoesNotExist',
      terms: [{ matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }] }],
      want: true,
    },
    {
      name: 'Gt',
      terms: [
        { matchExpressions: [{ key: 'size', operator: 'Gt', values: ['3'] }] },
      ],
      want: true,
    },
    {
      name: 'Lt',
      terms: [
        { matchExpressions: [{ key: 'size', operator: 'Lt', values: ['3'] }] },
      ],
      want: false,
    },
    {
      name: 'matchFields metadata.name In',
      terms: [
        {
          matchFields: [
            { key: 'metadata.name', operator: 'In', values: ['node-1'] },
          ],
        },
      ],
      want: true,
    },
    {
      name: 'matchFields metadata.name NotIn',
      terms: [
        {
          matchFields: [
            { key: 'metadata.name', operator: 'NotIn', values: ['node-1'] },
          ],
        },
      ],
      want: false,
    },
    {
      name: 'matchFields of an unknown field reads empty',
      terms: [
        { matchFields: [{ key: 'spec.x', operator: 'NotIn', values: ['v'] }] },
      ],
      want: true,
    },
    {
      name: 'expressions and fields are ANDed',
      terms: [
        {
          matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }],
          matchFields: [
            { key: 'metadata.name', operator: 'In', values: ['other'] },
          ],
        },
      ],
      want: false,
    },
    {
      name: 'terms are ORed',
      terms: [
        { matchExpressions: [{ key: 'zone', operator: 'In', values: ['z'] }] },
        {
          matchFields: [
            { key: 'metadata.name', operator: 'In', values: ['node-1'] },
          ],
        },
      ],
      want: true,
    },
    { name: 'no terms match nothing', terms: [], want: false },
    { name: 'an empty term matches nothing', terms: [{}], want: false },
    {
      name: 'Gt with a non-integer never matches',
      terms: [
        { matchExpressions: [{ key: 'size', operator: 'Gt', values: ['x'] }] },
      ],
      want: false,
    },
    {
      name: 'In without values never matches',
      terms: [
        { matchExpressions: [{ key: 'zone', operator: 'In', values: [] }] },
      ],
      want: false,
    },
    {
      name: 'matchFields with two values never matches',
      terms: [
        {
          matchFields: [
            {
              key: 'metadata.name',
              operator: 'In',
              values: ['node-1', 'node-2'],
            },
          ],
        },
      ],
      want: false,
    },
    {
      name: 'matchFields with Exists never matches',
      terms: [{ matchFields: [{ key: 'metadata.name', operator: 'Exists' }] }],
      want: false,
    },
    {
      name: 'matchFields with Exists and a value never matches',
      terms: [
        {
          matchFields: [
            { key: 'metadata.name', operator: 'Exists', values: ['node-1'] },
          ],
        },
      ],
      want: false,
    },
    {
      name: 'an invalid term does not stop a valid one',
      terms: [
        { matchExpressions: [{ key: 'size', operator: 'Gt', values: ['x'] }] },
        { matchExpressions: [{ key: 'zone', operator: 'Exists' }] },
      ],
      want: true,
    },
  ])('$name', ({ terms, want }) => {
    // Act / Assess
    expect(requiredNodeAffinityMatches(withTerms(terms), node)).toBe(want);
  });

  it('requires nodeSelector and affinity both', () => {
    // Prepare
    const spec = {
      ...withTerms([
        { matchExpressions: [{ key: 'zone', operator: 'Exists' }] },
      ]),
      nodeSelector: { color: 'red' },
    };
    // Act / Assess
    expect(requiredNodeAffinityMatches(spec, node)).toBe(false);
    expect(
      requiredNodeAffinityMatches(
        { containers: [], nodeSelector: { color: 'blue' } },
        node
      )
    ).toBe(true);
    expect(
      requiredNodeAffinityMatches(
        { containers: [], nodeSelector: { gpu: '' } },
        node
      )
    ).toBe(false);
    expect(
      requiredNodeAffinityMatches({ containers: [] }, newNode('bare'))
    ).toBe(true);
  });

  it('skips field requirements for a node without a name', () => {
    // Prepare
    const nameless = newNode('');
    // Act / Assess
    expect(
      requiredNodeAffinityMatches(
        withTerms([
          {
            matchFields: [
              { key: 'metadata.name', operator: 'In', values: ['x'] },
            ],
          },
        ]),
        nameless
      )
    ).toBe(true);
  });

  it('matches everything with required affinity but no terms list', () => {
    // Prepare
    const spec: PodSpec = {
      containers: [],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [],
          },
        },
      },
    };
    // Act / Assess
    expect(requiredNodeAffinityMatches(spec, node)).toBe(false);
  });
});

const pinned = (
  values: string[],
  operator = 'In',
  key = 'metadata.name'
): Pod => ({
  spec: {
    containers: [],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key, operator, values }] }],
        },
      },
    },
  },
});

describe('getTargetNodeName (util.GetTargetNodeName)', () => {
  it.each<{ name: string; pod: Pod; want: string | undefined }>([
    {
      name: 'pod with nodeName',
      pod: { spec: { containers: [], nodeName: 'node-1' } },
      want: 'node-1',
    },
    {
      name: 'pod with node name in affinity',
      pod: pinned(['node-1']),
      want: 'node-1',
    },
    {
      name: 'pod with more than one node name in affinity',
      pod: pinned(['node-1', 'node-2']),
      want: undefined,
    },
    {
      name: 'pod with invalid node name in affinity (NotIn)',
      pod: pinned(['node-1'], 'NotIn'),
      want: undefined,
    },
    {
      name: 'pod with another field',
      pod: pinned(['x'], 'In', 'metadata.namespace'),
      want: undefined,
    },
    {
      name: 'pod without node name',
      pod: { spec: { containers: [] } },
      want: undefined,
    },
    { name: 'pod without spec', pod: {}, want: undefined },
    {
      name: 'pod whose terms have only expressions',
      pod: {
        spec: {
          containers: [],
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  { matchExpressions: [{ key: 'a', operator: 'Exists' }] },
                ],
              },
            },
          },
        },
      },
      want: undefined,
    },
  ])('TestGetTargetNodeName: $name', ({ pod, want }) => {
    // Act / Assess
    expect(getTargetNodeName(pod)).toBe(want);
  });
});

describe('replaceDaemonSetPodNodeNameNodeAffinity', () => {
  const target = {
    nodeSelectorTerms: [
      {
        matchFields: [
          { key: 'metadata.name', operator: 'In', values: ['host_1'] },
        ],
      },
    ],
  };
  const preferred = [
    {
      weight: 1,
      preference: { matchExpressions: [{ key: 'a', operator: 'Exists' }] },
    },
  ];
  it.each<{ name: string; affinity: Affinity | undefined; want: Affinity }>([
    {
      name: 'nil affinity',
      affinity: undefined,
      want: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: target,
        },
      },
    },
    {
      name: 'affinity without nodeAffinity keeps pod affinity',
      affinity: { podAffinity: {} },
      want: {
        podAffinity: {},
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: target,
        },
      },
    },
    {
      name: 'preferred terms are kept',
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: preferred,
        },
      },
      want: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: preferred,
          requiredDuringSchedulingIgnoredDuringExecution: target,
        },
      },
    },
    {
      name: 'required matchExpressions are replaced',
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  { key: 'zone', operator: 'In', values: ['a'] },
                ],
              },
            ],
          },
        },
      },
      want: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: target,
        },
      },
    },
    {
      name: 'a multi-value metadata.name term is replaced',
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchFields: [
                  {
                    key: 'metadata.name',
                    operator: 'In',
                    values: ['host_1', 'host_2'],
                  },
                ],
              },
            ],
          },
        },
      },
      want: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: target,
        },
      },
    },
    {
      name: 'a NotIn term is replaced',
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchFields: [
                  {
                    key: 'metadata.name',
                    operator: 'NotIn',
                    values: ['host_2'],
                  },
                ],
              },
            ],
          },
        },
      },
      want: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: target,
        },
      },
    },
    {
      name: 'several terms collapse into one',
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchFields: [
                  { key: 'metadata.name', operator: 'In', values: ['host_1'] },
                ],
              },
              { matchExpressions: [{ key: 'x', operator: 'Exists' }] },
            ],
          },
        },
      },
      want: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: target,
        },
      },
    },
  ])(
    'TestReplaceDaemonSetPodNodeNameNodeAffinity: $name',
    ({ affinity, want }) => {
      // Prepare
      const before = structuredClone(affinity);
      // Act
      const got = replaceDaemonSetPodNodeNameNodeAffinity(affinity, 'host_1');
      // Assess
      expect(got).toEqual(want);
      expect(affinity).toEqual(before);
    }
  );
});
