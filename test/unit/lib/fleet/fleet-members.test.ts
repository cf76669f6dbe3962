import { describe, expect, it } from 'vitest';
import { fleetMembersOf } from '#lib/fleet/fleet-members.js';
import { parseFleetPolicy } from '#lib/fleet/fleet-policy.js';
import type { Ownership } from '#lib/ports/index.js';
import { registered } from '#test/helpers/fleet-cli-bed.js';

const policyOf = (kind: 'DaemonSet' | 'AdvancedDaemonSet') =>
  parseFleetPolicy({
    apiVersion: 'fleet.dsr.dev/v1alpha1',
    kind: 'FleetRolloutPolicy',
    metadata: { name: 'agent' },
    spec: {
      target: { namespace: 'kube-system', name: 'agent', kind },
      clusters: { ids: ['a', 'b', 'c'] },
      waves: [{ name: 'all', clusters: { ids: ['a', 'b', 'c'] } }],
    },
  });

const fleet = (
  [
    ['a', 'apps/v1'],
    ['b', 'apps/v1+OnDelete'],
    ['c', 'apps.dsr.dev/v1beta1'],
  ] as const
).map(([id, ownership]: readonly [string, Ownership]) =>
  registered(id, { id }, ownership)
);

describe('fleetMembersOf', () => {
  it.each([
    { kind: 'DaemonSet' as const, members: ['a', 'b'] },
    { kind: 'AdvancedDaemonSet' as const, members: ['c'] },
  ])(
    'keeps the clusters whose reconciler owns a $kind',
    ({ kind, members }) => {
      // Act
      const found = fleetMembersOf(policyOf(kind), fleet);

      // Assess
      expect(found.map((m) => m.id)).toEqual(members);
    }
  );

  it('carries the registration labels, none as empty', () => {
    // Prepare
    const { labels: _, ...unlabelled } = registered('a', {});

    // Act
    const found = fleetMembersOf(policyOf('DaemonSet'), [
      unlabelled,
      registered('b', { id: 'b' }, 'apps/v1+OnDelete'),
    ]);

    // Assess
    expect(found).toEqual([
      { id: 'a', labels: {} },
      { id: 'b', labels: { id: 'b' } },
    ]);
  });
});
