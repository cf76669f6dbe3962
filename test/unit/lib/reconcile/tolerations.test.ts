import { describe, expect, it } from 'vitest';
import {
  addOrUpdateDaemonPodTolerations,
  addOrUpdateTolerationInPodSpec,
  findMatchingUntoleratedTaint,
  toleratesTaint,
} from '#lib/reconcile/tolerations.js';
import type { Taint, Toleration } from '#lib/reconcile/types.js';

const taint: Taint = { key: 'k', value: 'v', effect: 'NoSchedule' };

describe('toleratesTaint (Toleration.ToleratesTaint)', () => {
  it.each<{ name: string; t: Toleration; want: boolean }>([
    {
      name: 'Equal with the same value',
      t: { key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' },
      want: true,
    },
    {
      name: 'empty operator means Equal',
      t: { key: 'k', value: 'v' },
      want: true,
    },
    {
      name: 'Equal with another value',
      t: { key: 'k', operator: 'Equal', value: 'w' },
      want: false,
    },
    {
      name: 'Equal without value against a valued taint',
      t: { key: 'k', operator: 'Equal' },
      want: false,
    },
    {
      name: 'Exists ignores the value',
      t: { key: 'k', operator: 'Exists' },
      want: true,
    },
    {
      name: 'empty key with Exists matches every key',
      t: { operator: 'Exists' },
      want: true,
    },
    {
      name: 'empty effect matches every effect',
      t: { key: 'k', operator: 'Exists', effect: '' },
      want: true,
    },
    {
      name: 'another effect does not match',
      t: { key: 'k', operator: 'Exists', effect: 'NoExecute' },
      want: false,
    },
    {
      name: 'another key does not match',
      t: { key: 'x', operator: 'Exists' },
      want: false,
    },
    {
      name: 'comparison operators are off (alpha gate)',
      t: { key: 'k', operator: 'Gt', value: '1' },
      want: false,
    },
  ])('$name', ({ t, want }) => {
    // Act / Assess
    expect(toleratesTaint(t, taint)).toBe(want);
  });

  it('matches an unvalued taint with Equal and no value', () => {
    // Act / Assess
    expect(
      toleratesTaint({ key: 'k' }, { key: 'k', effect: 'NoSchedule' })
    ).toBe(true);
  });
});

describe('findMatchingUntoleratedTaint', () => {
  it('returns the first taint in the filter that nothing tolerates', () => {
    // Prepare
    const taints: Taint[] = [
      { key: 'a', effect: 'PreferNoSchedule' },
      { key: 'b', effect: 'NoSchedule' },
      { key: 'c', effect: 'NoExecute' },
    ];
    const notPrefer = (t: Taint) => t.effect !== 'PreferNoSchedule';
    // Act / Assess
    expect(findMatchingUntoleratedTaint(taints, [], notPrefer)?.key).toBe('b');
    expect(
      findMatchingUntoleratedTaint(
        taints,
        [{ key: 'b', operator: 'Exists' }],
        notPrefer
      )?.key
    ).toBe('c');
    expect(
      findMatchingUntoleratedTaint(taints, [{ operator: 'Exists' }], notPrefer)
    ).toBeUndefined();
    expect(
      findMatchingUntoleratedTaint(undefined, undefined, notPrefer)
    ).toBeUndefined();
    expect(
      findMatchingUntoleratedTaint(taints, undefined, notPrefer)?.key
    ).toBe('b');
  });
});

describe('addOrUpdateTolerationInPodSpec', () => {
  it('replaces a matching toleration in place, dropping tolerationSeconds', () => {
    // Prepare
    const spec = {
      containers: [],
      tolerations: [
        { key: 'x', operator: 'Exists' },
        {
          key: 'node.kubernetes.io/not-ready',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
      ],
    };
    // Act
    const next = addOrUpdateTolerationInPodSpec(spec, {
      key: 'node.kubernetes.io/not-ready',
      operator: 'Exists',
      effect: 'NoExecute',
    });
    // Assess
    expect(next.tolerations).toEqual([
      { key: 'x', operator: 'Exists' },
      {
        key: 'node.kubernetes.io/not-ready',
        operator: 'Exists',
        effect: 'NoExecute',
      },
    ]);
    expect(spec.tolerations[1]?.tolerationSeconds).toBe(300);
  });

  it('treats absent and empty fields alike when matching', () => {
    // Prepare
    const spec = {
      containers: [],
      tolerations: [{ key: '', operator: '', value: '', effect: '' }],
    };
    // Act
    const next = addOrUpdateTolerationInPodSpec(spec, {});
    // Assess
    expect(next.tolerations).toEqual([{}]);
  });

  it('matches absent fields in the pod spec against empty ones', () => {
    // Act
    const next = addOrUpdateTolerationInPodSpec(
      { containers: [], tolerations: [{}] },
      { key: '', operator: '', value: '', effect: '' }
    );
    // Assess
    expect(next.tolerations).toEqual([
      { key: '', operator: '', value: '', effect: '' },
    ]);
  });

  it('appends a toleration that matches none', () => {
    // Act
    const next = addOrUpdateTolerationInPodSpec(
      { containers: [] },
      { key: 'a', operator: 'Exists' }
    );
    // Assess
    expect(next.tolerations).toEqual([{ key: 'a', operator: 'Exists' }]);
  });
});

describe('addOrUpdateDaemonPodTolerations (util.AddOrUpdateDaemonPodTolerations)', () => {
  it('adds the six daemon tolerations in upstream order', () => {
    // Act
    const spec = addOrUpdateDaemonPodTolerations({ containers: [] });
    // Assess
    expect(spec.tolerations).toEqual([
      {
        key: 'node.kubernetes.io/not-ready',
        operator: 'Exists',
        effect: 'NoExecute',
      },
      {
        key: 'node.kubernetes.io/unreachable',
        operator: 'Exists',
        effect: 'NoExecute',
      },
      {
        key: 'node.kubernetes.io/disk-pressure',
        operator: 'Exists',
        effect: 'NoSchedule',
      },
      {
        key: 'node.kubernetes.io/memory-pressure',
        operator: 'Exists',
        effect: 'NoSchedule',
      },
      {
        key: 'node.kubernetes.io/pid-pressure',
        operator: 'Exists',
        effect: 'NoSchedule',
      },
      {
        key: 'node.kubernetes.io/unschedulable',
        operator: 'Exists',
        effect: 'NoSchedule',
      },
    ]);
  });

  it('adds network-unavailable for hostNetwork pods', () => {
    // Act
    const spec = addOrUpdateDaemonPodTolerations({
      containers: [],
      hostNetwork: true,
    });
    // Assess
    expect(spec.tolerations?.at(-1)).toEqual({
      key: 'node.kubernetes.io/network-unavailable',
      operator: 'Exists',
      effect: 'NoSchedule',
    });
    expect(spec.tolerations).toHaveLength(7);
  });
});
