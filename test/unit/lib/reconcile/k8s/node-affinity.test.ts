import { describe, expect, it } from 'vitest';
import {
  getTargetNodeName,
  replaceDaemonSetPodNodeNameNodeAffinity,
  requiredNodeAffinityMatches,
} from '#lib/reconcile/k8s/node-affinity.js';
import type {
  Affinity,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  Pod,
  PodSpec,
} from '#lib/reconcile/k8s/types.js';
import { clone, newNode } from '../../../../helpers/builders.js';

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

const expr = (
  key: string,
  operator: string,
  values?: string[]
): NodeSelectorTerm => ({
  matchExpressions: [
    { key, operator, ...(values === undefined ? {} : { values }) },
  ],
});

const field = (
  operator: string,
  values?: string[],
  key = 'metadata.name'
): NodeSelectorTerm => ({
  matchFields: [{ key, operator, ...(values === undefined ? {} : { values }) }],
});

const node = newNode('node-1', {
  zone: 'a',
  size: '4',
  color: 'blue',
  huge: '99999999999999999999',
});

describe('requiredNodeAffinityMatches (GetRequiredNodeAffinity(pod).Match)', () => {
  it.each<{ name: string; term: NodeSelectorTerm; want: boolean }>([
    {
      name: 'In with the value',
      term: expr('zone', 'In', ['b', 'a']),
      want: true,
    },
    {
      name: 'In without the value',
      term: expr('zone', 'In', ['b']),
      want: false,
    },
    {
      name: 'In on a missing key',
      term: expr('gpu', 'In', ['a']),
      want: false,
    },
    {
      name: 'NotIn with the value',
      term: expr('zone', 'NotIn', ['a']),
      want: false,
    },
    {
      name: 'NotIn without the value',
      term: expr('zone', 'NotIn', ['b']),
      want: true,
    },
    {
      name: 'NotIn on a missing key',
      term: expr('gpu', 'NotIn', ['a']),
      want: true,
    },
    {
      name: 'Exists on a present key',
      term: expr('zone', 'Exists'),
      want: true,
    },
    {
      name: 'Exists on a missing key',
      term: expr('gpu', 'Exists'),
      want: false,
    },
    {
      name: 'DoesNotExist on a missing key',
      term: expr('gpu', 'DoesNotExist'),
      want: true,
    },
    {
      name: 'DoesNotExist on a present key',
      term: expr('zone', 'DoesNotExist'),
      want: false,
    },
    { name: 'Gt below the label', term: expr('size', 'Gt', ['3']), want: true },
    {
      name: 'Gt equal to the label',
      term: expr('size', 'Gt', ['4']),
      want: false,
    },
    {
      name: 'Gt with leading zeros',
      term: expr('size', 'Gt', ['03']),
      want: true,
    },
    { name: 'Lt above the label', term: expr('size', 'Lt', ['5']), want: true },
    {
      name: 'Lt equal to the label',
      term: expr('size', 'Lt', ['4']),
      want: false,
    },
    {
      name: 'Gt on a missing key',
      term: expr('gpu', 'Gt', ['1']),
      want: false,
    },
    {
      name: 'Gt on a non-integer label',
      term: expr('zone', 'Gt', ['1']),
      want: false,
    },
    {
      name: 'Gt on a label beyond int64 (ParseInt fails)',
      term: expr('huge', 'Gt', ['1']),
      want: false,
    },
    {
      name: 'Lt on a label beyond int64 (ParseInt fails)',
      term: expr('huge', 'Lt', ['1']),
      want: false,
    },
    {
      name: 'expressions of a term are ANDed',
      term: {
        matchExpressions: [
          { key: 'zone', operator: 'In', values: ['a'] },
          { key: 'color', operator: 'In', values: ['red'] },
        ],
      },
      want: false,
    },
    {
      name: 'matchFields metadata.name In',
      term: field('In', ['node-1']),
      want: true,
    },
    {
      name: 'matchFields metadata.name In another',
      term: field('In', ['node-2']),
      want: false,
    },
    {
      name: 'matchFields metadata.name NotIn',
      term: field('NotIn', ['node-1']),
      want: false,
    },
    {
      name: 'matchFields metadata.name NotIn another',
      term: field('NotIn', ['node-2']),
      want: true,
    },
    {
      name: 'matchFields of another key reads it as empty (In)',
      term: field('In', ['x'], 'metadata.namespace'),
      want: false,
    },
    {
      name: 'matchFields of another key reads it as empty (NotIn)',
      term: field('NotIn', ['x'], 'metadata.namespace'),
      want: true,
    },
    {
      name: 'matchFields of another key reads it as empty (In "")',
      term: field('In', [''], 'spec.unschedulable'),
      want: true,
    },
    {
      name: 'expressions and fields of a term are ANDed (fields fail)',
      term: { ...expr('zone', 'In', ['a']), ...field('In', ['node-2']) },
      want: false,
    },
    {
      name: 'expressions and fields of a term are ANDed (both hold)',
      term: { ...expr('zone', 'In', ['a']), ...field('In', ['node-1']) },
      want: true,
    },
  ])('matches $name: $want', ({ term, want }) => {
    // Act
    const got = requiredNodeAffinityMatches(withTerms([term]), node);
    // Assess
    expect(got).toBe(want);
  });

  it.each<{ name: string; term: NodeSelectorTerm }>([
    { name: 'an empty term', term: {} },
    {
      name: 'a term with empty lists',
      term: { matchExpressions: [], matchFields: [] },
    },
    { name: 'Gt with a non-integer', term: expr('size', 'Gt', ['x']) },
    {
      name: 'Gt beyond int64',
      term: expr('size', 'Gt', ['9223372036854775808']),
    },
    {
      name: 'Gt with a negative value (not a label value)',
      term: expr('size', 'Gt', ['-1']),
    },
    { name: 'Gt with two values', term: expr('size', 'Gt', ['1', '2']) },
    { name: 'Lt without values', term: expr('size', 'Lt') },
    { name: 'In without values', term: expr('zone', 'In', []) },
    { name: 'NotIn without values', term: expr('gpu', 'NotIn') },
    { name: 'Exists with values', term: expr('zone', 'Exists', ['a']) },
    {
      name: 'DoesNotExist with values',
      term: expr('gpu', 'DoesNotExist', ['a']),
    },
    { name: 'an unknown operator', term: expr('zone', 'Equals', ['a']) },
    { name: 'a lower-case operator', term: expr('zone', 'in', ['a']) },
    { name: 'an invalid key', term: expr('bad key', 'DoesNotExist') },
    { name: 'an invalid value', term: expr('gpu', 'NotIn', ['bad value']) },
    {
      name: 'matchFields with two values',
      term: field('In', ['node-1', 'node-2']),
    },
    { name: 'matchFields without values', term: field('In') },
    {
      name: 'matchFields NotIn with two values',
      term: field('NotIn', ['a', 'b']),
    },
    { name: 'matchFields with Exists', term: field('Exists') },
    {
      name: 'matchFields with Exists and a value',
      term: field('Exists', ['node-1']),
    },
    { name: 'matchFields with Gt', term: field('Gt', ['1']) },
    {
      name: 'a valid expression beside an invalid field',
      term: { ...expr('zone', 'Exists'), ...field('In', ['a', 'b']) },
    },
  ])('never matches through $name', ({ term }) => {
    // Act
    const alone = requiredNodeAffinityMatches(withTerms([term]), node);
    const ored = requiredNodeAffinityMatches(
      withTerms([term, expr('zone', 'Exists')]),
      node
    );
    // Assess
    expect(alone).toBe(false);
    expect(ored).toBe(true);
  });

  it.each<{ name: string; terms: NodeSelectorTerm[]; want: boolean }>([
    { name: 'no terms match nothing', terms: [], want: false },
    {
      name: 'terms are ORed: one of two matches',
      terms: [expr('zone', 'In', ['z']), field('In', ['node-1'])],
      want: true,
    },
    {
      name: 'terms are ORed: none of two matches',
      terms: [expr('zone', 'In', ['z']), field('In', ['node-2'])],
      want: false,
    },
    {
      name: 'an invalid term first does not stop a later match',
      terms: [expr('size', 'Gt', ['x']), expr('zone', 'Exists')],
      want: true,
    },
  ])('$name', ({ terms, want }) => {
    // Act / Assess
    expect(requiredNodeAffinityMatches(withTerms(terms), node)).toBe(want);
  });

  it.each<{ name: string; spec: PodSpec; want: boolean }>([
    {
      name: 'no nodeSelector nor affinity',
      spec: { containers: [] },
      want: true,
    },
    {
      name: 'an empty nodeSelector',
      spec: { containers: [], nodeSelector: {} },
      want: true,
    },
    {
      name: 'nodeSelector matching every entry',
      spec: { containers: [], nodeSelector: { zone: 'a', color: 'blue' } },
      want: true,
    },
    {
      name: 'nodeSelector with one entry off',
      spec: { containers: [], nodeSelector: { zone: 'a', color: 'red' } },
      want: false,
    },
    {
      name: 'nodeSelector with an empty value for a missing key',
      spec: { containers: [], nodeSelector: { gpu: '' } },
      want: false,
    },
    {
      name: 'nodeSelector is not validated',
      spec: { containers: [], nodeSelector: { 'bad key': 'x' } },
      want: false,
    },
    {
      name: 'nodeSelector and affinity must both hold (selector fails)',
      spec: {
        ...withTerms([expr('zone', 'Exists')]),
        nodeSelector: { color: 'red' },
      },
      want: false,
    },
    {
      name: 'nodeSelector and affinity must both hold (affinity fails)',
      spec: {
        ...withTerms([expr('gpu', 'Exists')]),
        nodeSelector: { color: 'blue' },
      },
      want: false,
    },
    {
      name: 'nodeAffinity without required terms',
      spec: {
        containers: [],
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 1, preference: expr('gpu', 'Exists') },
            ],
          },
        },
      },
      want: true,
    },
    {
      name: 'required affinity without a terms list (malformed wire data)',
      // Wire objects are parsed JSON: the type's required list may be absent.
      spec: JSON.parse(
        '{"containers":[],"affinity":{"nodeAffinity":' +
          '{"requiredDuringSchedulingIgnoredDuringExecution":{}}}}'
      ) as PodSpec,
      want: false,
    },
  ])('checks $name', ({ spec, want }) => {
    // Act / Assess
    expect(requiredNodeAffinityMatches(spec, node)).toBe(want);
  });

  it('skips matchFields on a node without a name but still rejects bad ones', () => {
    // Prepare
    const nameless = newNode('', { zone: 'a' });
    // Act
    const valid = requiredNodeAffinityMatches(
      withTerms([field('In', ['x'])]),
      nameless
    );
    const invalid = requiredNodeAffinityMatches(
      withTerms([field('In', ['x', 'y'])]),
      nameless
    );
    // Assess
    expect(valid).toBe(true);
    expect(invalid).toBe(false);
  });

  it('matches a node without labels only through absence', () => {
    // Prepare
    const bare = newNode('bare');
    // Act / Assess
    expect(
      requiredNodeAffinityMatches(withTerms([expr('a', 'DoesNotExist')]), bare)
    ).toBe(true);
    expect(
      requiredNodeAffinityMatches(withTerms([expr('a', 'Exists')]), bare)
    ).toBe(false);
    expect(
      requiredNodeAffinityMatches(
        { containers: [], nodeSelector: { a: 'b' } },
        bare
      )
    ).toBe(false);
  });
});

const podWithTerms = (terms: NodeSelectorTerm[], name = 'pod'): Pod => ({
  metadata: { name, namespace: 'default' },
  spec: withTerms(terms),
});

const nameIn = (values: string[]): NodeSelectorRequirement => ({
  key: 'metadata.name',
  operator: 'In',
  values,
});

describe('getTargetNodeName (util.GetTargetNodeName)', () => {
  it.each<{ name: string; pod: Pod; want: string | undefined }>([
    {
      name: 'pod1: spec.nodeName',
      pod: {
        metadata: { name: 'pod1', namespace: 'default' },
        spec: { containers: [], nodeName: 'node-1' },
      },
      want: 'node-1',
    },
    {
      name: 'pod2: node name in affinity',
      pod: podWithTerms([{ matchFields: [nameIn(['node-1'])] }], 'pod2'),
      want: 'node-1',
    },
    {
      name: 'pod3: more than one node name in affinity (error)',
      pod: podWithTerms(
        [{ matchFields: [nameIn(['node-1', 'node-2'])] }],
        'pod3'
      ),
      want: undefined,
    },
    {
      name: 'pod4: no nodeName and no affinity (error)',
      pod: {
        metadata: { name: 'pod4', namespace: 'default' },
        spec: { containers: [] },
      },
      want: undefined,
    },
  ])('TestGetTargetNodeName: $name', ({ pod, want }) => {
    // Act / Assess
    expect(getTargetNodeName(pod)).toBe(want);
  });

  it.each<{ name: string; pod: Pod; want: string | undefined }>([
    { name: 'pod without spec', pod: {}, want: undefined },
    {
      name: 'nodeName wins over affinity',
      pod: {
        spec: {
          ...withTerms([{ matchFields: [nameIn(['a'])] }]),
          nodeName: 'b',
        },
      },
      want: 'b',
    },
    { name: 'no terms', pod: podWithTerms([]), want: undefined },
    {
      name: 'terms with expressions only',
      pod: podWithTerms([expr('zone', 'In', ['a'])]),
      want: undefined,
    },
    {
      name: 'NotIn only',
      pod: podWithTerms([field('NotIn', ['node-1'])]),
      want: undefined,
    },
    {
      name: 'another field key',
      pod: podWithTerms([field('In', ['x'], 'metadata.namespace')]),
      want: undefined,
    },
    {
      name: 'the first In requirement across terms',
      pod: podWithTerms([
        field('NotIn', ['node-0']),
        { matchFields: [nameIn(['node-1'])] },
        { matchFields: [nameIn(['node-2'])] },
      ]),
      want: 'node-1',
    },
    {
      name: 'a multi-value first In is an error even if a later one is valid',
      pod: podWithTerms([
        { matchFields: [nameIn(['node-1', 'node-2'])] },
        { matchFields: [nameIn(['node-3'])] },
      ]),
      want: undefined,
    },
    {
      name: 'an In without values is an error',
      pod: podWithTerms([field('In')]),
      want: undefined,
    },
    {
      name: 'an empty single value is returned as is',
      pod: podWithTerms([{ matchFields: [nameIn([''])] }]),
      want: '',
    },
  ])('returns the target for $name', ({ pod, want }) => {
    // Act / Assess
    expect(getTargetNodeName(pod)).toBe(want);
  });
});

describe('replaceDaemonSetPodNodeNameNodeAffinity', () => {
  const hostTerms = (values: string[]) => ({
    nodeSelectorTerms: [{ matchFields: [nameIn(values)] }],
  });
  const hostnameIn = (host: string): NodeSelectorTerm => ({
    matchExpressions: [
      { key: 'kubernetes.io/hostname', operator: 'In', values: [host] },
    ],
  });
  const required = (terms: NodeSelectorTerm[]): Affinity => ({
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: terms,
      },
    },
  });
  const expected: Affinity = {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: hostTerms(['host_1']),
    },
  };
  const preferred = [{ weight: 0, preference: hostnameIn('host_1') }];

  it.each<{ name: string; affinity: Affinity | undefined; want: Affinity }>([
    { name: '[0] nil affinity', affinity: undefined, want: expected },
    {
      name: '[1] required hostname expression replaced',
      affinity: required([hostnameIn('host_1')]),
      want: expected,
    },
    {
      name: '[2] preferred only: required added, preferred kept',
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: preferred,
        },
      },
      want: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: preferred,
          requiredDuringSchedulingIgnoredDuringExecution: hostTerms(['host_1']),
        },
      },
    },
    {
      name: '[3] matchFields with two names replaced',
      affinity: required([{ matchFields: [nameIn(['host_1', 'host_2'])] }]),
      want: expected,
    },
    { name: '[4] nil affinity again', affinity: undefined, want: expected },
    {
      name: '[5] an expression term and another host term collapse into one',
      affinity: required([
        {
          matchExpressions: [
            { key: 'hostname', operator: 'In', values: ['host_1'] },
          ],
        },
        { matchFields: [nameIn(['host_2'])] },
      ]),
      want: expected,
    },
    {
      name: '[6] NotIn matchFields replaced',
      affinity: required([field('NotIn', ['host_2'])]),
      want: expected,
    },
    {
      name: '[7] an unknown field key replaced',
      affinity: required([field('In', ['bar'], 'metadata.foo')]),
      want: expected,
    },
  ])(
    'TestReplaceDaemonSetPodNodeNameNodeAffinity: $name',
    ({ affinity, want }) => {
      // Prepare
      const before = clone(affinity);
      // Act
      const got = replaceDaemonSetPodNodeNameNodeAffinity(affinity, 'host_1');
      // Assess
      expect(got).toStrictEqual(want);
      expect(affinity).toStrictEqual(before);
    }
  );

  it('keeps pod affinity and anti-affinity', () => {
    // Prepare
    const affinity: Affinity = {
      podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [] },
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] },
      nodeAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: preferred,
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [hostnameIn('host_9')],
        },
      },
    };
    // Act
    const got = replaceDaemonSetPodNodeNameNodeAffinity(affinity, 'host_1');
    // Assess
    expect(got).toStrictEqual({
      podAffinity: affinity.podAffinity,
      podAntiAffinity: affinity.podAntiAffinity,
      nodeAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: preferred,
        requiredDuringSchedulingIgnoredDuringExecution: hostTerms(['host_1']),
      },
    });
  });

  it('returns fresh terms on every call', () => {
    // Prepare
    const first = replaceDaemonSetPodNodeNameNodeAffinity(undefined, 'a');
    // Act
    first.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms.push(
      {}
    );
    const second = replaceDaemonSetPodNodeNameNodeAffinity(undefined, 'a');
    // Assess
    expect(
      second.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
        ?.nodeSelectorTerms
    ).toHaveLength(1);
  });

  it('produces a target getTargetNodeName reads back', () => {
    // Prepare
    const affinity = replaceDaemonSetPodNodeNameNodeAffinity(
      required([hostnameIn('x')]),
      'node-7'
    );
    // Act
    const got = getTargetNodeName({ spec: { containers: [], affinity } });
    // Assess
    expect(got).toBe('node-7');
  });
});
