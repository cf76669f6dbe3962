import { describe, expect, it } from 'vitest';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import {
  asRollingUpdate,
  PAUSED_ANNOTATION,
  ROLLOUT_ANNOTATION,
  readOnDeleteOptIn,
  rolloutView,
} from '#lib/reconcile/on-delete/rollout-annotation.js';
import { newDaemonSet } from '../../../../helpers/builders.js';

/** An OnDelete DaemonSet carrying `annotations`. */
const onDelete = (
  annotations: Record<string, string>,
  type = 'OnDelete'
): DaemonSet => {
  const ds = newDaemonSet('agent');
  if (ds.spec) ds.spec.updateStrategy = { type };
  ds.metadata = { ...ds.metadata, annotations };
  return ds;
};

const problemsOf = (ds: DaemonSet): string[] => {
  const optIn = readOnDeleteOptIn(ds);
  return optIn.optedIn && 'problems' in optIn ? optIn.problems : [];
};

describe('readOnDeleteOptIn', () => {
  it('leaves a DaemonSet without the annotation out', () => {
    expect(readOnDeleteOptIn(onDelete({}))).toEqual({ optedIn: false });
    expect(readOnDeleteOptIn(onDelete({}, 'RollingUpdate'))).toEqual({
      optedIn: false,
    });
  });

  it('reads every control, with maxUnavailable 1 by default', () => {
    // Prepare
    const ds = onDelete({
      [ROLLOUT_ANNOTATION]: JSON.stringify({
        maxUnavailable: '25%',
        partition: 3,
        selector: { matchLabels: { canary: 'true' } },
        paused: false,
        preDelete: { labelsHandler: { hold: 'yes' }, markPodNotReady: true },
      }),
    });
    const spec = ds.spec?.template?.spec;
    if (spec) spec.readinessGates = [{ conditionType: 'KruisePodReady' }];
    // Act
    const full = readOnDeleteOptIn(ds);
    const bare = readOnDeleteOptIn(onDelete({ [ROLLOUT_ANNOTATION]: '{}' }));
    // Assess
    expect(full).toEqual({
      optedIn: true,
      controls: {
        maxUnavailable: '25%',
        partition: 3,
        selector: { matchLabels: { canary: 'true' } },
        paused: false,
        preDelete: { labelsHandler: { hold: 'yes' }, markPodNotReady: true },
      },
    });
    expect(bare).toEqual({
      optedIn: true,
      controls: { maxUnavailable: 1, paused: false },
    });
  });

  it('is paused by the rollout-paused annotation', () => {
    const optIn = readOnDeleteOptIn(
      onDelete({ [ROLLOUT_ANNOTATION]: '{}', [PAUSED_ANNOTATION]: 'true' })
    );
    expect(optIn).toMatchObject({ controls: { paused: true } });
  });

  it('refuses maxSurge with the reason', () => {
    expect(
      problemsOf(onDelete({ [ROLLOUT_ANNOTATION]: '{"maxSurge": 1}' }))
    ).toEqual([
      "apps.dsr.dev/rollout: maxSurge cannot work in the OnDelete mode: the cluster's DaemonSet controller creates a pod only where none is left, so no node can run two; remove it, or use an AdvancedDaemonSet for surge",
    ]);
  });

  it('refuses an annotation that is not JSON', () => {
    expect(
      problemsOf(onDelete({ [ROLLOUT_ANNOTATION]: 'maxUnavailable: 2' }))
    ).toEqual([
      expect.stringMatching(/^apps\.dsr\.dev\/rollout is not JSON: /),
    ]);
    expect(problemsOf(onDelete({ [ROLLOUT_ANNOTATION]: '[1]' }))).toEqual([
      'apps.dsr.dev/rollout must be a JSON object of rollout controls',
    ]);
  });

  it('refuses the opt-in on a RollingUpdate DaemonSet', () => {
    expect(
      problemsOf(onDelete({ [ROLLOUT_ANNOTATION]: '{}' }, 'RollingUpdate'))
    ).toEqual([
      "apps.dsr.dev/rollout needs updateStrategy.type OnDelete, not RollingUpdate: the cluster's DaemonSet controller rolls a RollingUpdate DaemonSet itself; set updateStrategy.type: OnDelete (one Helm value) or remove the annotation",
    ]);
  });

  it('refuses markPodNotReady on a template without the KruisePodReady gate', () => {
    // Prepare
    const annotations = {
      [ROLLOUT_ANNOTATION]: '{"preDelete": {"markPodNotReady": true}}',
    };
    const gated = onDelete(annotations);
    const spec = gated.spec?.template?.spec;
    if (spec) spec.readinessGates = [{ conditionType: 'KruisePodReady' }];
    // Act / Assess
    expect(problemsOf(onDelete(annotations))).toEqual([
      "apps.dsr.dev/rollout: preDelete.markPodNotReady needs readinessGates: [{conditionType: KruisePodReady}] in the pod template, since the cluster's DaemonSet controller makes the pods from the template alone",
    ]);
    expect(problemsOf(gated)).toEqual([]);
  });

  it('names a control of the wrong type, and bad hook handlers', () => {
    expect(
      problemsOf(
        onDelete({
          [ROLLOUT_ANNOTATION]: JSON.stringify({
            maxUnavailable: true,
            preDelete: {
              finalizersHandler: ['x/y', 1],
              markPodNotReady: 'yes',
            },
          }),
        })
      )
    ).toEqual([
      'apps.dsr.dev/rollout: maxUnavailable must be a whole number or a percentage such as "20%"',
      'apps.dsr.dev/rollout: preDelete.finalizersHandler must be a list of strings',
      'apps.dsr.dev/rollout: preDelete.markPodNotReady must be true or false',
    ]);
    expect(
      problemsOf(onDelete({ [ROLLOUT_ANNOTATION]: '{"preDelete": []}' }))
    ).toEqual(['apps.dsr.dev/rollout: preDelete must be an object']);
    expect(
      problemsOf(
        onDelete({
          [ROLLOUT_ANNOTATION]: '{"preDelete": {"finalizersHandler": ["x/y"]}}',
        })
      )
    ).toEqual([]);
  });

  it('refuses a percentage above 100%, a selector that is no object, and reads a missing strategy as RollingUpdate', () => {
    // Prepare
    const noStrategy = onDelete({ [ROLLOUT_ANNOTATION]: '{}' });
    if (noStrategy.spec) delete noStrategy.spec.updateStrategy;
    // Act / Assess
    expect(
      problemsOf(
        onDelete({
          [ROLLOUT_ANNOTATION]: '{"partition": "150%", "selector": "a=b"}',
        })
      )
    ).toEqual([
      'apps.dsr.dev/rollout: partition must be a whole number or a percentage such as "20%", not "150%"',
      'apps.dsr.dev/rollout: selector is not a label selector: not an object',
    ]);
    expect(problemsOf(noStrategy)[0]).toContain('not RollingUpdate');
    expect(readOnDeleteOptIn({ spec: noStrategy.spec } as DaemonSet)).toEqual({
      optedIn: false,
    });
  });

  it('names every bad field', () => {
    const problems = problemsOf(
      onDelete({
        [ROLLOUT_ANNOTATION]: JSON.stringify({
          maxUnavailable: '20 percent',
          partition: -1,
          selector: { matchLabels: { 'bad key!': 'x' } },
          paused: 'yes',
          preDelete: { labelsHandler: ['x'], wait: 1 },
          surge: 1,
        }),
      })
    );
    expect(problems).toEqual([
      'apps.dsr.dev/rollout: surge is not a rollout control (maxUnavailable, partition, selector, paused, preDelete)',
      'apps.dsr.dev/rollout: maxUnavailable must be a whole number or a percentage such as "20%", not "20 percent"',
      'apps.dsr.dev/rollout: partition must be a whole number or a percentage such as "20%", not -1',
      expect.stringMatching(
        /^apps\.dsr\.dev\/rollout: selector is not a label selector: /
      ),
      'apps.dsr.dev/rollout: paused must be true or false',
      'apps.dsr.dev/rollout: preDelete.wait is not a hook field (labelsHandler, finalizersHandler, markPodNotReady)',
      'apps.dsr.dev/rollout: preDelete.labelsHandler must be a map of strings',
    ]);
  });
});

describe('asRollingUpdate', () => {
  it('gives the planner a RollingUpdate without surge, carrying the controls and the hook', () => {
    // Prepare
    const ds = onDelete({ [ROLLOUT_ANNOTATION]: '{}' });
    // Act
    const planned = asRollingUpdate(ds, {
      maxUnavailable: 2,
      partition: 1,
      paused: false,
      preDelete: { finalizersHandler: ['x/y'] },
    });
    // Assess
    expect(planned.spec?.updateStrategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: {
        maxUnavailable: 2,
        maxSurge: 0,
        partition: 1,
        paused: false,
      },
    });
    expect(planned.spec?.lifecycle).toEqual({
      preDelete: { finalizersHandler: ['x/y'] },
    });
    expect(ds.spec?.updateStrategy).toEqual({ type: 'OnDelete' });
  });
});

describe('rolloutView', () => {
  it('is the RollingUpdate form of an opted-in DaemonSet, else the DaemonSet itself', () => {
    const opted = onDelete({ [ROLLOUT_ANNOTATION]: '{"partition": 2}' });
    const plain = onDelete({});
    expect(
      rolloutView(opted).spec?.updateStrategy?.rollingUpdate?.partition
    ).toBe(2);
    expect(rolloutView(plain)).toBe(plain);
  });
});
