/**
 * Tests for lib/reconcile/advanced/pod-readiness.ts: Kruise's
 * pkg/util/podreadiness (`TestPodReadiness`) and the PreparingDelete half
 * of pkg/util/lifecycle `Test_realControl_executePodNotReadyPolicy`, plus
 * the gate injection Kruise's pod webhook does.
 */
import { describe, expect, it } from 'vitest';
import { INPLACE_UPDATE_READY } from '#lib/reconcile/advanced/in-place-update.js';
import {
  isDaemonPodAvailable,
  KRUISE_POD_READY,
  PRE_DELETE_HOOK_KEY,
  planAddNotReadyKey,
  planPodReadyRefresh,
  podConditionsPatch,
  readinessGatesFor,
  withReadinessGates,
} from '#lib/reconcile/advanced/pod-readiness.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import { newDaemonSet } from '../../../../helpers/builders.js';

const NOW = '2026-11-24T00:00:00Z';

const pod = (
  gates: string[],
  conditions: { type: string; status: string; message?: string }[] = []
): Pod => ({
  metadata: { name: 'p' },
  spec: {
    containers: [{ name: 'c', image: 'a:1' }],
    readinessGates: gates.map((conditionType) => ({ conditionType })),
  },
  status: { conditions },
});

const withControls = (change: (ds: DaemonSet) => void): DaemonSet => {
  const ds = newDaemonSet('ads');
  change(ds);
  return ds;
};

describe('readinessGatesFor / withReadinessGates (Kruise’s pod webhook)', () => {
  it('adds no gate to a plain DaemonSet’s pods, and leaves the template as it is', () => {
    const ds = newDaemonSet('ads');
    const template = ds.spec?.template ?? {};
    expect(readinessGatesFor(ds)).toEqual([]);
    expect(withReadinessGates(template, [])).toBe(template);
  });

  it('adds InPlaceUpdateReady for InPlaceIfPossible and KruisePodReady for markPodNotReady, after the template’s own', () => {
    const ds = withControls((d) => {
      if (!d.spec) return;
      d.spec.updateStrategy = {
        type: 'RollingUpdate',
        rollingUpdate: { rollingUpdateType: 'InPlaceIfPossible' },
      };
      d.spec.lifecycle = {
        preDelete: { labelsHandler: { hold: 'true' }, markPodNotReady: true },
      };
      if (d.spec.template.spec) {
        d.spec.template.spec.readinessGates = [{ conditionType: 'Other' }];
      }
    });
    const gates = readinessGatesFor(ds);
    expect(gates).toEqual([INPLACE_UPDATE_READY, KRUISE_POD_READY]);
    expect(
      withReadinessGates(ds.spec?.template ?? {}, gates).spec?.readinessGates
    ).toEqual([
      { conditionType: 'Other' },
      { conditionType: INPLACE_UPDATE_READY },
      { conditionType: KRUISE_POD_READY },
    ]);
    expect(withReadinessGates({}, [KRUISE_POD_READY]).spec).toEqual({
      containers: [],
      readinessGates: [{ conditionType: KRUISE_POD_READY }],
    });
  });

  it('adds no KruisePodReady gate for a hook without markPodNotReady', () => {
    const ds = withControls((d) => {
      if (d.spec)
        d.spec.lifecycle = { preDelete: { finalizersHandler: ['x'] } };
    });
    expect(readinessGatesFor(ds)).toEqual([]);
  });
});

describe('planPodReadyRefresh (Kruise’s podreadiness controller)', () => {
  it('sets a missing KruisePodReady condition True', () => {
    expect(planPodReadyRefresh(pod([KRUISE_POD_READY]), NOW)).toEqual({
      type: KRUISE_POD_READY,
      status: 'True',
      lastTransitionTime: NOW,
    });
  });

  it('leaves pods without the gate, and conditions that exist, alone', () => {
    expect(planPodReadyRefresh(pod([]), NOW)).toBeUndefined();
    const held = pod(
      [KRUISE_POD_READY],
      [{ type: KRUISE_POD_READY, status: 'False', message: '[]' }]
    );
    expect(planPodReadyRefresh(held, NOW)).toBeUndefined();
  });
});

describe('planAddNotReadyKey', () => {
  it('TestPodReadiness: pods without the gate are untouched', () => {
    expect(
      planAddNotReadyKey(pod([]), PRE_DELETE_HOOK_KEY, NOW)
    ).toBeUndefined();
  });

  it('Test_realControl_executePodNotReadyPolicy (PreparingDelete adds a key): KruisePodReady False with the key; Ready False when containers are ready', () => {
    const ready = pod(
      [KRUISE_POD_READY],
      [
        { type: KRUISE_POD_READY, status: 'True' },
        { type: 'ContainersReady', status: 'True' },
        { type: 'Ready', status: 'True' },
      ]
    );
    expect(planAddNotReadyKey(ready, PRE_DELETE_HOOK_KEY, NOW)).toEqual([
      {
        type: KRUISE_POD_READY,
        status: 'False',
        message: '[{"userAgent":"Lifecycle","key":"preDeleteHook"}]',
        lastTransitionTime: NOW,
      },
      {
        type: 'Ready',
        status: 'False',
        reason: 'ReadinessGatesNotReady',
        message:
          'the status of pod readiness gate "KruisePodReady" is not "True", but False',
        lastTransitionTime: NOW,
      },
    ]);
  });

  it('TestPodReadiness: keys stay sorted and unique; a key present writes nothing', () => {
    const other = { userAgent: 'Alpha', key: 'drain' };
    const later = { userAgent: 'Lifecycle', key: 'update' };
    const heldByOther = pod(
      [KRUISE_POD_READY],
      [
        {
          type: KRUISE_POD_READY,
          status: 'False',
          message: JSON.stringify([later, other]),
        },
      ]
    );
    const [condition, ...rest] =
      planAddNotReadyKey(heldByOther, PRE_DELETE_HOOK_KEY, NOW) ?? [];
    expect(rest).toEqual([]);
    expect(JSON.parse(condition?.message ?? '')).toEqual([
      other,
      PRE_DELETE_HOOK_KEY,
      later,
    ]);
    const heldByHook = pod(
      [KRUISE_POD_READY],
      [
        {
          type: KRUISE_POD_READY,
          status: 'False',
          message: JSON.stringify([PRE_DELETE_HOOK_KEY]),
        },
      ]
    );
    expect(
      planAddNotReadyKey(heldByHook, PRE_DELETE_HOOK_KEY, NOW)
    ).toBeUndefined();
  });

  it('reads an unparsable or non-list message as no keys', () => {
    for (const message of ['{', '{"a":1}']) {
      const broken = pod(
        [KRUISE_POD_READY],
        [{ type: KRUISE_POD_READY, status: 'False', message }]
      );
      expect(
        planAddNotReadyKey(broken, PRE_DELETE_HOOK_KEY, NOW)?.[0]?.message
      ).toBe('[{"userAgent":"Lifecycle","key":"preDeleteHook"}]');
    }
  });
});

describe('podConditionsPatch', () => {
  it('is a strategic-merge patch of status.conditions (merged by type)', () => {
    expect(
      JSON.parse(
        podConditionsPatch([
          { type: KRUISE_POD_READY, status: 'True', lastTransitionTime: NOW },
        ])
      )
    ).toEqual({
      status: {
        conditions: [
          { type: KRUISE_POD_READY, status: 'True', lastTransitionTime: NOW },
        ],
      },
    });
  });
});

describe('isDaemonPodAvailable with the KruisePodReady gate', () => {
  const running = (p: Pod): Pod => ({
    ...p,
    status: {
      ...p.status,
      phase: 'Running',
      conditions: [
        ...(p.status?.conditions ?? []),
        { type: 'Ready', status: 'True', lastTransitionTime: NOW },
      ],
    },
  });
  const nowMs = Date.parse(NOW);

  it('holds a gated pod whose condition is missing or False, as a kubelet holds Ready', () => {
    expect(
      isDaemonPodAvailable(running(pod([KRUISE_POD_READY])), 0, nowMs)
    ).toBe(false);
    const held = running(
      pod([KRUISE_POD_READY], [{ type: KRUISE_POD_READY, status: 'False' }])
    );
    expect(isDaemonPodAvailable(held, 0, nowMs)).toBe(false);
  });

  it('lets a gated pod with the condition True serve, and an ungated pod by Ready alone', () => {
    const released = running(
      pod([KRUISE_POD_READY], [{ type: KRUISE_POD_READY, status: 'True' }])
    );
    expect(isDaemonPodAvailable(released, 0, nowMs)).toBe(true);
    expect(isDaemonPodAvailable(running(pod([])), 0, nowMs)).toBe(true);
  });
});
