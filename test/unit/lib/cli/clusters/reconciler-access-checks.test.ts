import { readFileSync } from 'node:fs';
import { loadYaml } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  ADVANCED_RECONCILER_RULES,
  accessChecksFromRules,
  formatAccessCheck,
  ON_DELETE_RECONCILER_RULES,
  RECONCILER_RULES,
  reconcilerRulesFor,
} from '#lib/cli/clusters/reconciler-access-checks.js';

const RBAC_YAML = new URL(
  '../../../../../infra/kubernetes/rbac.yaml',
  import.meta.url
);

describe('RECONCILER_RULES', () => {
  it('equals the rules of the ClusterRole in infra/kubernetes/rbac.yaml', () => {
    // Prepare
    const role = loadYaml<{ kind: string; rules: unknown[] }>(
      readFileSync(RBAC_YAML, 'utf8')
    );
    // Assess
    expect(role.kind).toBe('ClusterRole');
    expect(RECONCILER_RULES).toEqual(role.rules);
  });
});

describe('ADVANCED_RECONCILER_RULES', () => {
  it('equals the rules of infra/kubernetes/rbac-advanced-daemonset.yaml and grant nothing on apps/v1 DaemonSets', () => {
    // Prepare
    const role = loadYaml<{ kind: string; rules: unknown[] }>(
      readFileSync(
        new URL(
          '../../../../../infra/kubernetes/rbac-advanced-daemonset.yaml',
          import.meta.url
        ),
        'utf8'
      )
    );
    // Assess
    expect(ADVANCED_RECONCILER_RULES).toEqual(role.rules);
    expect(
      accessChecksFromRules(ADVANCED_RECONCILER_RULES).filter(
        (c) => c.resource === 'daemonsets'
      )
    ).toEqual([]);
  });

  it('is what clusters check reviews for an own-kind cluster', () => {
    expect(reconcilerRulesFor('apps.dsr.dev/v1beta1')).toBe(
      ADVANCED_RECONCILER_RULES
    );
    expect(reconcilerRulesFor('apps/v1')).toBe(RECONCILER_RULES);
  });
});

describe('ON_DELETE_RECONCILER_RULES', () => {
  it('equals the rules of infra/kubernetes/rbac-on-delete.yaml and grant no create, no status and no revision write', () => {
    // Prepare
    const role = loadYaml<{ kind: string; rules: unknown[] }>(
      readFileSync(
        new URL(
          '../../../../../infra/kubernetes/rbac-on-delete.yaml',
          import.meta.url
        ),
        'utf8'
      )
    );
    // Act
    const checks = accessChecksFromRules(ON_DELETE_RECONCILER_RULES).map(
      formatAccessCheck
    );
    // Assess
    expect(ON_DELETE_RECONCILER_RULES).toEqual(role.rules);
    expect(reconcilerRulesFor('apps/v1+OnDelete')).toBe(
      ON_DELETE_RECONCILER_RULES
    );
    expect(checks).not.toContain('create pods');
    expect(checks).not.toContain('create pods/binding');
    expect(checks).not.toContain('update daemonsets.apps/status');
    expect(checks.filter((c) => c.includes('controllerrevisions'))).toEqual([
      'get controllerrevisions.apps',
      'list controllerrevisions.apps',
      'watch controllerrevisions.apps',
    ]);
  });
});

describe('accessChecksFromRules', () => {
  it('returns one check per group, resource and verb, splitting subresources', () => {
    // Act
    const checks = accessChecksFromRules([
      {
        apiGroups: ['extensions', 'apps'],
        resources: ['daemonsets', 'daemonsets/status'],
        verbs: ['get', 'update'],
      },
    ]);
    // Assess
    expect(checks).toEqual([
      { verb: 'get', group: 'extensions', resource: 'daemonsets' },
      { verb: 'update', group: 'extensions', resource: 'daemonsets' },
      {
        verb: 'get',
        group: 'extensions',
        resource: 'daemonsets',
        subresource: 'status',
      },
      {
        verb: 'update',
        group: 'extensions',
        resource: 'daemonsets',
        subresource: 'status',
      },
      { verb: 'get', group: 'apps', resource: 'daemonsets' },
      { verb: 'update', group: 'apps', resource: 'daemonsets' },
      {
        verb: 'get',
        group: 'apps',
        resource: 'daemonsets',
        subresource: 'status',
      },
      {
        verb: 'update',
        group: 'apps',
        resource: 'daemonsets',
        subresource: 'status',
      },
    ]);
  });

  it('turns the reconciler role into 31 reviews', () => {
    // Act
    const checks = accessChecksFromRules(RECONCILER_RULES);
    // Assess
    expect(checks).toHaveLength(31);
    expect(new Set(checks.map(formatAccessCheck)).size).toBe(31);
  });
});

describe('formatAccessCheck', () => {
  it.each([
    {
      check: { verb: 'create', group: '', resource: 'pods' },
      text: 'create pods',
    },
    {
      check: {
        verb: 'update',
        group: 'apps',
        resource: 'daemonsets',
        subresource: 'status',
      },
      text: 'update daemonsets.apps/status',
    },
    {
      check: {
        verb: 'create',
        group: '',
        resource: 'pods',
        subresource: 'binding',
      },
      text: 'create pods/binding',
    },
  ])('returns $text', ({ check, text }) => {
    // Act
    const formatted = formatAccessCheck(check);
    // Assess
    expect(formatted).toBe(text);
  });
});
