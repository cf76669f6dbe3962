import { describe, expect, it } from 'vitest';
import {
  addOrUpdateDaemonPodTolerations,
  addOrUpdateTolerationInPodSpec,
  findMatchingUntoleratedTaint,
  matchToleration,
  TAINT_NODE_DISK_PRESSURE,
  TAINT_NODE_MEMORY_PRESSURE,
  TAINT_NODE_NETWORK_UNAVAILABLE,
  TAINT_NODE_NOT_READY,
  TAINT_NODE_PID_PRESSURE,
  TAINT_NODE_UNREACHABLE,
  TAINT_NODE_UNSCHEDULABLE,
  TaintEffect,
  toleratesTaint,
} from '#lib/reconcile/k8s/tolerations.js';
import type { PodSpec, Taint, Toleration } from '#lib/reconcile/k8s/types.js';
import { clone } from '../../../../helpers/builders.js';

describe('toleratesTaint (Toleration.ToleratesTaint)', () => {
  const valued: Taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
  const unvalued: Taint = { key: 'k', effect: 'NoExecute' };

  it.each<{
    name: string;
    toleration: Toleration;
    taint: Taint;
    want: boolean;
  }>([
    {
      name: 'Equal with the same key, value and effect',
      toleration: {
        key: 'k',
        operator: 'Equal',
        value: 'v',
        effect: 'NoSchedule',
      },
      taint: valued,
      want: true,
    },
    {
      name: 'an empty operator means Equal',
      toleration: { key: 'k', value: 'v' },
      taint: valued,
      want: true,
    },
    {
      name: 'Equal with another value',
      toleration: { key: 'k', operator: 'Equal', value: 'w' },
      taint: valued,
      want: false,
    },
    {
      name: 'Equal without value against a valued taint',
      toleration: { key: 'k', operator: 'Equal' },
      taint: valued,
      want: false,
    },
    {
      name: 'Equal without value against an unvalued taint',
      toleration: { key: 'k', operator: 'Equal' },
      taint: unvalued,
      want: true,
    },
    {
      name: 'Equal with a value against an unvalued taint',
      toleration: { key: 'k', operator: 'Equal', value: 'v' },
      taint: unvalued,
      want: false,
    },
    {
      name: 'Exists ignores the value',
      toleration: { key: 'k', operator: 'Exists', value: 'ignored' },
      taint: valued,
      want: true,
    },
    {
      name: 'an empty key with Exists matches every key',
      toleration: { operator: 'Exists' },
      taint: valued,
      want: true,
    },
    {
      name: 'an empty key with Equal compares only the value',
      toleration: { key: '', operator: 'Equal', value: 'v' },
      taint: valued,
      want: true,
    },
    {
      name: 'an empty effect matches NoSchedule',
      toleration: { key: 'k', operator: 'Exists', effect: '' },
      taint: valued,
      want: true,
    },
    {
      name: 'an absent effect matches NoExecute',
      toleration: { key: 'k', operator: 'Exists' },
      taint: unvalued,
      want: true,
    },
    {
      name: 'another effect does not match',
      toleration: { key: 'k', operator: 'Exists', effect: 'NoExecute' },
      taint: valued,
      want: false,
    },
    {
      name: 'PreferNoSchedule does not tolerate NoSchedule',
      toleration: { key: 'k', operator: 'Exists', effect: 'PreferNoSchedule' },
      taint: valued,
      want: false,
    },
    {
      name: 'another key does not match',
      toleration: { key: 'x', operator: 'Exists' },
      taint: valued,
      want: false,
    },
    {
      name: 'Gt never tolerates (alpha comparison operators off)',
      toleration: { key: 'k', operator: 'Gt', value: '1' },
      taint: { key: 'k', value: '5', effect: 'NoSchedule' },
      want: false,
    },
    {
      name: 'Lt never tolerates (alpha comparison operators off)',
      toleration: { key: 'k', operator: 'Lt', value: '9' },
      taint: { key: 'k', value: '5', effect: 'NoSchedule' },
      want: false,
    },
    {
      name: 'an unknown operator never tolerates',
      toleration: { key: 'k', operator: 'equal', value: 'v' },
      taint: valued,
      want: false,
    },
  ])('$name: $want', ({ toleration, taint, want }) => {
    // Act / Assess
    expect(toleratesTaint(toleration, taint)).toBe(want);
  });
});

describe('findMatchingUntoleratedTaint (FindMatchingUntoleratedTaint)', () => {
  const taints: Taint[] = [
    { key: 'a', effect: 'PreferNoSchedule' },
    { key: 'b', effect: 'NoSchedule' },
    { key: 'c', effect: 'NoExecute' },
  ];
  const scheduling = (t: Taint) =>
    t.effect === TaintEffect.NoSchedule || t.effect === TaintEffect.NoExecute;

  it.each<{
    name: string;
    taints: Taint[] | undefined;
    tolerations: Toleration[] | undefined;
    filter?: (t: Taint) => boolean;
    want: string | undefined;
  }>([
    {
      name: 'the first filtered taint nothing tolerates',
      taints,
      tolerations: [],
      filter: scheduling,
      want: 'b',
    },
    {
      name: 'skips tolerated taints',
      taints,
      tolerations: [{ key: 'b', operator: 'Exists' }],
      filter: scheduling,
      want: 'c',
    },
    {
      name: 'nothing when everything is tolerated',
      taints,
      tolerations: [{ operator: 'Exists' }],
      filter: scheduling,
      want: undefined,
    },
    {
      name: 'every taint without a filter',
      taints,
      tolerations: undefined,
      want: 'a',
    },
    {
      name: 'nothing without taints',
      taints: undefined,
      tolerations: undefined,
      filter: scheduling,
      want: undefined,
    },
    {
      name: 'nothing when the filter excludes all',
      taints,
      tolerations: [],
      filter: () => false,
      want: undefined,
    },
  ])('returns $name', ({ taints, tolerations, filter, want }) => {
    // Act
    const got = findMatchingUntoleratedTaint(taints, tolerations, filter);
    // Assess
    expect(got?.key).toBe(want);
  });
});

describe('matchToleration (Toleration.MatchToleration)', () => {
  const base: Toleration = {
    key: 'k',
    operator: 'Equal',
    value: 'v',
    effect: 'NoSchedule',
  };

  it.each<{ name: string; other: Toleration; want: boolean }>([
    { name: 'identical', other: { ...base }, want: true },
    {
      name: 'differs only in tolerationSeconds',
      other: { ...base, tolerationSeconds: 5 },
      want: true,
    },
    { name: 'another key', other: { ...base, key: 'x' }, want: false },
    {
      name: 'another effect',
      other: { ...base, effect: 'NoExecute' },
      want: false,
    },
    { name: 'another value', other: { ...base, value: 'w' }, want: false },
    {
      name: "'' versus Equal operator",
      other: { ...base, operator: '' },
      want: false,
    },
  ])('$name: $want', ({ other, want }) => {
    // Act / Assess
    expect(matchToleration(base, other)).toBe(want);
  });

  it('treats absent and empty fields alike', () => {
    // Act / Assess
    expect(
      matchToleration({}, { key: '', operator: '', value: '', effect: '' })
    ).toBe(true);
    expect(
      matchToleration({ key: '', operator: '', value: '', effect: '' }, {})
    ).toBe(true);
  });
});

describe('addOrUpdateTolerationInPodSpec (AddOrUpdateTolerationInPodSpec)', () => {
  const notReady: Toleration = {
    key: TAINT_NODE_NOT_READY,
    operator: 'Exists',
    effect: 'NoExecute',
  };
  const other: Toleration = { key: 'x', operator: 'Exists' };

  it.each<{
    name: string;
    tolerations: Toleration[] | undefined;
    want: Toleration[];
  }>([
    {
      name: 'appends to absent tolerations',
      tolerations: undefined,
      want: [notReady],
    },
    {
      name: 'appends when none matches',
      tolerations: [other],
      want: [other, notReady],
    },
    {
      name: 'replaces a match in place, dropping tolerationSeconds',
      tolerations: [{ ...notReady, tolerationSeconds: 300 }, other],
      want: [notReady, other],
    },
    {
      name: 'leaves an equal toleration as it is',
      tolerations: [other, notReady],
      want: [other, notReady],
    },
    {
      name: 'replaces every match (upstream DeepEqual never short-cuts)',
      tolerations: [{ ...notReady, tolerationSeconds: 1 }, notReady, other],
      want: [notReady, notReady, other],
    },
    {
      name: 'does not match another operator',
      tolerations: [{ key: TAINT_NODE_NOT_READY, effect: 'NoExecute' }],
      want: [{ key: TAINT_NODE_NOT_READY, effect: 'NoExecute' }, notReady],
    },
  ])('$name', ({ tolerations, want }) => {
    // Prepare
    const spec: PodSpec = {
      containers: [],
      ...(tolerations === undefined ? {} : { tolerations }),
    };
    const before = clone(spec);
    // Act
    const got = addOrUpdateTolerationInPodSpec(spec, notReady);
    // Assess
    expect(got.tolerations).toStrictEqual(want);
    expect(spec).toStrictEqual(before);
  });

  it('returns new toleration objects', () => {
    // Prepare
    const toleration = { ...notReady };
    // Act
    const got = addOrUpdateTolerationInPodSpec({ containers: [] }, toleration);
    // Assess
    expect(got.tolerations?.[0]).not.toBe(toleration);
  });
});

describe('addOrUpdateDaemonPodTolerations (util.AddOrUpdateDaemonPodTolerations)', () => {
  const daemon = (key: string, effect: string): Toleration => ({
    key,
    operator: 'Exists',
    effect,
  });
  const six = [
    daemon(TAINT_NODE_NOT_READY, 'NoExecute'),
    daemon(TAINT_NODE_UNREACHABLE, 'NoExecute'),
    daemon(TAINT_NODE_DISK_PRESSURE, 'NoSchedule'),
    daemon(TAINT_NODE_MEMORY_PRESSURE, 'NoSchedule'),
    daemon(TAINT_NODE_PID_PRESSURE, 'NoSchedule'),
    daemon(TAINT_NODE_UNSCHEDULABLE, 'NoSchedule'),
  ];
  const network = daemon(TAINT_NODE_NETWORK_UNAVAILABLE, 'NoSchedule');
  const user: Toleration = {
    key: 'dedicated',
    value: 'user1',
    effect: 'NoSchedule',
  };

  it.each<{ name: string; spec: PodSpec; want: Toleration[] }>([
    {
      name: 'adds the six daemon tolerations in order',
      spec: { containers: [] },
      want: six,
    },
    {
      name: 'adds network-unavailable last with hostNetwork',
      spec: { containers: [], hostNetwork: true },
      want: [...six, network],
    },
    {
      name: 'does not add network-unavailable with hostNetwork false',
      spec: { containers: [], hostNetwork: false },
      want: six,
    },
    {
      name: 'keeps user tolerations first',
      spec: { containers: [], tolerations: [user] },
      want: [user, ...six],
    },
    {
      name: "replaces a user's matching toleration in place (tolerationSeconds dropped)",
      spec: {
        containers: [],
        tolerations: [
          {
            ...daemon(TAINT_NODE_UNREACHABLE, 'NoExecute'),
            tolerationSeconds: 300,
          },
          user,
        ],
      },
      want: [
        daemon(TAINT_NODE_UNREACHABLE, 'NoExecute'),
        user,
        daemon(TAINT_NODE_NOT_READY, 'NoExecute'),
        ...six.slice(2),
      ],
    },
    {
      name: 'is idempotent',
      spec: { containers: [], tolerations: clone(six) },
      want: six,
    },
  ])('$name', ({ spec, want }) => {
    // Prepare
    const before = clone(spec);
    // Act
    const got = addOrUpdateDaemonPodTolerations(spec);
    // Assess
    expect(got.tolerations).toStrictEqual(want);
    expect(spec).toStrictEqual(before);
  });
});
