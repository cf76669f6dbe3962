/**
 * Tests for lib/reconcile/advanced/validate-daemon-set-spec.ts: the rules
 * of Kruise's validating webhook that the CRD's CEL cannot express
 * (spec/kruise-ads.md §1.4 V1 and the part of V4 pods need).
 */
import { describe, expect, it } from 'vitest';
import { validateDaemonSetSpec } from '#lib/reconcile/advanced/validate-daemon-set-spec.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import { newDaemonSet } from '../../../../helpers/builders.js';

const withSpec = (change: (ds: DaemonSet) => void): DaemonSet => {
  const ds = newDaemonSet('ads');
  change(ds);
  return ds;
};

describe('validateDaemonSetSpec', () => {
  it('passes the DaemonSet every upstream test uses', () => {
    expect(validateDaemonSetSpec(newDaemonSet('ads'))).toEqual([]);
  });

  it('leaves the selector-to-labels match to the CRD’s CEL (a template without labels passes here)', () => {
    const ds = withSpec((d) => {
      if (d.spec) d.spec.template.metadata = undefined;
    });
    expect(validateDaemonSetSpec(ds)).toEqual([]);
  });

  it.each([
    [
      'In without values',
      { key: 'app', operator: 'In' },
      "values set can't be empty",
    ],
    [
      'Exists with values',
      { key: 'app', operator: 'Exists', values: ['x'] },
      'values set must be empty',
    ],
    [
      'an operator LabelSelector does not know',
      { key: 'app', operator: 'Gt', values: ['1'] },
      '"Gt" is not a valid label selector operator',
    ],
    [
      'a key that is not a qualified name',
      { key: 'bad key', operator: 'Exists' },
      'invalid label key',
    ],
  ])(
    'V1: refuses a spec.selector expression with %s',
    (_, expression, reason) => {
      const ds = withSpec((d) => {
        if (d.spec) d.spec.selector.matchExpressions = [expression];
      });
      const [error, ...rest] = validateDaemonSetSpec(ds);
      expect(rest).toEqual([]);
      expect(error).toMatch(/^spec\.selector: Invalid value: /);
      expect(error).toContain(reason);
    }
  );

  it('refuses a canary rollingUpdate.selector the API server let through (Kruise only type-checks it)', () => {
    const ds = withSpec((d) => {
      if (d.spec) {
        d.spec.updateStrategy = {
          type: 'RollingUpdate',
          rollingUpdate: {
            selector: {
              matchExpressions: [{ key: 'zone', operator: 'In', values: [] }],
            },
          },
        };
      }
    });
    expect(validateDaemonSetSpec(ds)).toEqual([
      expect.stringMatching(
        /^spec\.updateStrategy\.rollingUpdate\.selector: Invalid value: .*values set can't be empty/
      ),
    ]);
  });

  it('refuses a template label value that is not a label value', () => {
    const ds = withSpec((d) => {
      const labels = d.spec?.template.metadata?.labels;
      if (labels) labels.tier = 'not a value!';
    });
    expect(validateDaemonSetSpec(ds)).toEqual([
      expect.stringMatching(
        /^spec\.template\.metadata\.labels: Invalid value: .*invalid label value "not a value!"/
      ),
    ]);
  });

  it('refuses a template without containers', () => {
    const ds = withSpec((d) => {
      if (d.spec?.template.spec) d.spec.template.spec.containers = [];
    });
    expect(validateDaemonSetSpec(ds)).toEqual([
      'spec.template.spec.containers: Required value',
    ]);
  });

  it('refuses container names that are not RFC 1123 labels, or repeat', () => {
    const ds = withSpec((d) => {
      if (d.spec?.template.spec) {
        d.spec.template.spec.containers = [
          { name: 'agent', image: 'a' },
          { name: 'Agent_1', image: 'b' },
          { name: 'agent', image: 'c' },
          { image: 'd' } as never,
        ];
      }
    });
    expect(validateDaemonSetSpec(ds)).toEqual([
      'spec.template.spec.containers[1].name: Invalid value: "Agent_1": must be a lowercase RFC 1123 label',
      'spec.template.spec.containers[2].name: Duplicate value: "agent"',
      'spec.template.spec.containers[3].name: Invalid value: "": must be a lowercase RFC 1123 label',
    ]);
  });

  it.each([
    ['nodeSelector', { nodeSelector: { zone: 1 } }],
    ['nodeSelector', { nodeSelector: ['zone'] }],
    ['tolerations', { tolerations: { a: 1 } }],
    ['tolerations', { tolerations: ['a'] }],
    [
      'affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms',
      {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: 'x',
            },
          },
        },
      },
    ],
    [
      'affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms',
      {
        affinity: {
          nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: 'x' },
        },
      },
    ],
  ])('refuses a %s of the wrong shape (%j)', (field, podSpec) => {
    const ds = withSpec((d) => {
      Object.assign(d.spec?.template.spec ?? {}, podSpec);
    });
    expect(validateDaemonSetSpec(ds)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^spec\\.template\\.spec\\.${field.replaceAll('.', '\\.')}: Invalid value: must be`
        )
      ),
    ]);
  });

  it('finds no placement error in a template without a pod spec', () => {
    const ds = withSpec((d) => {
      if (d.spec) d.spec.template = { metadata: d.spec.template.metadata };
    });
    expect(validateDaemonSetSpec(ds)).toEqual([
      'spec.template.spec.containers: Required value',
    ]);
  });

  it('passes placement fields of the upstream shapes', () => {
    const ds = withSpec((d) => {
      Object.assign(d.spec?.template.spec ?? {}, {
        nodeSelector: { zone: 'a' },
        tolerations: [{ operator: 'Exists' }],
        affinity: {
          podAffinity: {},
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [] }],
            },
          },
        },
      });
    });
    expect(validateDaemonSetSpec(ds)).toEqual([]);
  });

  it('lets an error that is not about the spec through (a bug here, not the user’s)', () => {
    const ds = withSpec((d) => {
      if (d.spec) d.spec.selector.matchExpressions = [null as never];
    });
    expect(() => validateDaemonSetSpec(ds)).toThrow(TypeError);
  });

  it('lists every error, in field order', () => {
    const ds = withSpec((d) => {
      if (!d.spec?.template.spec) return;
      d.spec.selector.matchExpressions = [{ key: 'app', operator: 'In' }];
      d.spec.template.spec.containers = [];
      d.spec.updateStrategy = {
        type: 'RollingUpdate',
        rollingUpdate: { selector: { matchLabels: { 'a/b/c': 'x' } } },
      };
    });
    expect(validateDaemonSetSpec(ds).map((e) => e.split(':')[0])).toEqual([
      'spec.selector',
      'spec.template.spec.containers',
      'spec.updateStrategy.rollingUpdate.selector',
    ]);
  });
});
