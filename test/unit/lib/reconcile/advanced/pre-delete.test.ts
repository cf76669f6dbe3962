/**
 * The preDelete gate: Kruise's TestIsPodHooked (pkg/util/lifecycle) and the
 * planning half of `syncWithPreparingDelete`.
 */
import { describe, expect, it } from 'vitest';
import {
  KRUISE_POD_READY,
  PRE_DELETE_HOOK_KEY,
} from '#lib/reconcile/advanced/pod-readiness.js';
import {
  isPodHooked,
  LIFECYCLE_TIMESTAMP_ANNOTATION,
  planPreparingDelete,
} from '#lib/reconcile/advanced/pre-delete.js';
import {
  LIFECYCLE_STATE_LABEL,
  PREPARING_DELETE,
} from '#lib/reconcile/advanced/rollout-controls.js';
import type { Pod } from '#lib/reconcile/k8s/types.js';

const pod = (
  name: string,
  labels: Record<string, string> = {},
  finalizers: string[] = []
): Pod => ({ metadata: { name, labels, finalizers } });

const hook = {
  labelsHandler: { 'example.com/drain': 'true' },
  finalizersHandler: ['example.com/cleanup'],
};

describe('isPodHooked (TestIsPodHooked)', () => {
  it.each([
    { name: 'no label, no finalizer', p: pod('a'), hooked: false },
    {
      name: 'the label with another value',
      p: pod('a', { 'example.com/drain': 'false' }),
      hooked: false,
    },
    {
      name: 'the label with its value',
      p: pod('a', { 'example.com/drain': 'true' }),
      hooked: true,
    },
    {
      name: 'one of the finalizers',
      p: pod('a', {}, ['other', 'example.com/cleanup']),
      hooked: true,
    },
  ])('$name ⇒ $hooked', ({ p, hooked }) => {
    expect(isPodHooked(hook, p)).toBe(hooked);
  });

  it('holds a pod without metadata by nothing', () => {
    expect(isPodHooked(hook, {})).toBe(false);
  });

  it('holds nothing with an empty hook', () => {
    expect(isPodHooked({}, pod('a', { x: 'y' }, ['f']))).toBe(false);
  });
});

describe('planPreparingDelete', () => {
  const now = '2026-11-23T22:00:00Z';

  it('lets every delete through without a hook', () => {
    expect(planPreparingDelete(undefined, [], ['a', 'b'], now)).toEqual({
      podsToDelete: ['a', 'b'],
      podsToMarkNotReady: [],
      podsToMark: [],
    });
  });

  it('TestSetPodLifecycle, Test_realControl_UpdatePodLifecycle: marks hooked pods PreparingDelete (label + timestamp annotation), leaves pods already in that state, deletes the others, drops vanished ones', () => {
    // Prepare
    const pods = [
      {},
      pod('held', { 'example.com/drain': 'true' }),
      pod('free'),
      pod('marked', {
        'example.com/drain': 'true',
        [LIFECYCLE_STATE_LABEL]: PREPARING_DELETE,
      }),
    ];
    // Act
    const plan = planPreparingDelete(
      hook,
      pods,
      ['held', 'free', 'marked', 'gone'],
      now
    );
    // Assess
    expect(plan.podsToDelete).toEqual(['free']);
    expect(plan.podsToMarkNotReady).toEqual([]);
    expect(plan.podsToMark).toEqual([
      {
        name: 'held',
        patch: JSON.stringify({
          metadata: {
            labels: { [LIFECYCLE_STATE_LABEL]: PREPARING_DELETE },
            annotations: { [LIFECYCLE_TIMESTAMP_ANNOTATION]: now },
          },
        }),
      },
    ]);
  });

  it('with markPodNotReady, first takes every held gated pod out of service, PreparingDelete or not, once', () => {
    // Prepare
    const gated = (p: Pod, conditions: Pod['status'] = {}): Pod => ({
      ...p,
      spec: {
        containers: [],
        readinessGates: [{ conditionType: KRUISE_POD_READY }],
      },
      status: conditions,
    });
    const drain = { 'example.com/drain': 'true' };
    const pods = [
      gated(pod('held', drain)),
      gated(
        pod('marked', { ...drain, [LIFECYCLE_STATE_LABEL]: PREPARING_DELETE })
      ),
      gated(pod('out', drain), {
        conditions: [
          {
            type: KRUISE_POD_READY,
            status: 'False',
            message: JSON.stringify([PRE_DELETE_HOOK_KEY]),
          },
        ],
      }),
      pod('ungated', drain),
      gated(pod('free')),
    ];
    // Act
    const plan = planPreparingDelete(
      { ...hook, markPodNotReady: true },
      pods,
      ['held', 'marked', 'out', 'ungated', 'free'],
      now
    );
    // Assess
    expect(plan.podsToDelete).toEqual(['free']);
    expect(plan.podsToMarkNotReady.map((m) => m.name)).toEqual([
      'held',
      'marked',
    ]);
    expect(JSON.parse(plan.podsToMarkNotReady[0]?.patch ?? '')).toEqual({
      status: {
        conditions: [
          {
            type: KRUISE_POD_READY,
            status: 'False',
            message: JSON.stringify([PRE_DELETE_HOOK_KEY]),
            lastTransitionTime: now,
          },
        ],
      },
    });
    expect(plan.podsToMark.map((m) => m.name)).toEqual([
      'held',
      'out',
      'ungated',
    ]);
  });
});
