/**
 * The in-place update planners, with cases ported from Kruise's
 * pkg/util/inplaceupdate tests (TestCalculateInPlaceUpdateSpec,
 * TestCheckInPlaceUpdateCompleted, TestRefresh) as far as ADS uses them.
 */
import { describe, expect, it } from 'vitest';
import {
  canUpdateInPlace,
  INPLACE_UPDATE_READY,
  INPLACE_UPDATE_STATE_ANNOTATION,
  isInPlaceIfPossible,
  isInPlaceReady,
  isInPlaceUpdateCompleted,
  planInPlaceUpdate,
  planRefreshUpdateState,
} from '#lib/reconcile/advanced/in-place-update.js';
import { isDaemonPodAvailable } from '#lib/reconcile/advanced/pod-readiness.js';
import type { Pod, PodTemplateSpec } from '#lib/reconcile/k8s/types.js';
import { markPodReady, newDaemonSet } from '../../../../helpers/builders.js';

const template = (image: string, env?: string): PodTemplateSpec => ({
  metadata: { labels: { app: 'a' } },
  spec: {
    containers: [
      {
        name: 'c',
        image,
        ...(env ? { env: [{ name: 'E', value: env }] } : {}),
      },
      { name: 'side', image: 'side:1' },
    ],
  },
});

const gated = (extra: Partial<Pod> = {}): Pod => ({
  metadata: { name: 'p', labels: {} },
  spec: {
    containers: [{ name: 'c', image: 'a:2' }],
    readinessGates: [{ conditionType: INPLACE_UPDATE_READY }],
  },
  ...extra,
});

const withState = (pod: Pod, imageID: string): Pod => ({
  ...pod,
  metadata: {
    ...pod.metadata,
    annotations: {
      [INPLACE_UPDATE_STATE_ANNOTATION]: JSON.stringify({
        revision: 'v2',
        updateTimestamp: 'x',
        lastContainerStatuses: { c: { imageID } },
        updateImages: true,
      }),
    },
  },
});

describe('canUpdateInPlace (TestCalculateInPlaceUpdateSpec)', () => {
  it('returns the new images when only images changed', () => {
    expect(canUpdateInPlace(template('a:1'), template('a:2'))).toEqual(
      new Map([['c', 'a:2']])
    );
  });

  it('returns undefined for any other change (env), a new container, or nothing', () => {
    expect(
      canUpdateInPlace(template('a:1'), template('a:2', 'x'))
    ).toBeUndefined();
    const more = template('a:2');
    more.spec?.containers.push({ name: 'new', image: 'n' });
    expect(canUpdateInPlace(template('a:1'), more)).toBeUndefined();
    expect(canUpdateInPlace(template('a:1'), template('a:1'))).toBeUndefined();
    expect(canUpdateInPlace(undefined, undefined)).toBeUndefined();
  });
});

describe('isInPlaceUpdateCompleted (TestCheckInPlaceUpdateCompleted)', () => {
  it('no state ⇒ done', () => {
    expect(isInPlaceUpdateCompleted(gated())).toBe(true);
  });

  it('imageID changed ⇒ done', () => {
    const pod = withState(
      gated({
        status: {
          containerStatuses: [
            {
              name: 'c',
              image: 'a:1',
              imageID: 'id2',
              ready: true,
              restartCount: 0,
            },
          ],
        },
      }),
      'id1'
    );
    expect(isInPlaceUpdateCompleted(pod)).toBe(true);
  });

  it('same imageID and another status image ⇒ not done', () => {
    const pod = withState(
      gated({
        status: {
          containerStatuses: [
            {
              name: 'c',
              image: 'a:1',
              imageID: 'id1',
              ready: true,
              restartCount: 0,
            },
          ],
        },
      }),
      'id1'
    );
    expect(isInPlaceUpdateCompleted(pod)).toBe(false);
  });

  it('same imageID but the status shows the spec image ⇒ done (":latest" implied)', () => {
    const pod = withState(
      gated({
        status: {
          containerStatuses: [
            {
              name: 'c',
              image: 'a:2',
              imageID: 'id1',
              ready: true,
              restartCount: 0,
            },
          ],
        },
      }),
      'id1'
    );
    const latest = withState(
      {
        ...gated({
          status: {
            containerStatuses: [
              {
                name: 'c',
                image: 'b:latest',
                imageID: 'id1',
                ready: true,
                restartCount: 0,
              },
            ],
          },
        }),
        spec: { containers: [{ name: 'c', image: 'b' }] },
      },
      'id1'
    );
    expect(isInPlaceUpdateCompleted(pod)).toBe(true);
    expect(isInPlaceUpdateCompleted(latest)).toBe(true);
  });

  it('a recorded container gone from the spec is done once its status moved on', () => {
    const pod = withState(
      {
        ...gated({
          status: {
            containerStatuses: [
              {
                name: 'c',
                image: 'x',
                imageID: 'id2',
                ready: true,
                restartCount: 0,
              },
            ],
          },
        }),
        spec: { containers: [] },
      },
      'id1'
    );
    expect(isInPlaceUpdateCompleted(pod)).toBe(true);
    const stuck = withState(
      {
        ...gated({
          status: {
            containerStatuses: [
              {
                name: 'c',
                image: 'x',
                imageID: 'id1',
                ready: true,
                restartCount: 0,
              },
            ],
          },
        }),
        spec: { containers: [] },
      },
      'id1'
    );
    expect(isInPlaceUpdateCompleted(stuck)).toBe(false);
  });

  it('container missing from status ⇒ not done; unreadable state ⇒ done', () => {
    expect(isInPlaceUpdateCompleted(withState(gated(), 'id1'))).toBe(false);
    const broken = gated();
    if (broken.metadata) {
      broken.metadata.annotations = { [INPLACE_UPDATE_STATE_ANNOTATION]: '{' };
    }
    expect(isInPlaceUpdateCompleted(broken)).toBe(true);
  });
});

describe('planRefreshUpdateState (TestRefresh)', () => {
  const now = '2026-11-23T23:00:00Z';

  it('no readiness-gate ⇒ nothing', () => {
    expect(
      planRefreshUpdateState({ metadata: {}, spec: { containers: [] } }, now)
    ).toBeUndefined();
  });

  it('no existing condition ⇒ True', () => {
    expect(planRefreshUpdateState(gated(), now)).toEqual({
      type: INPLACE_UPDATE_READY,
      status: 'True',
      lastTransitionTime: now,
    });
  });

  it('existing condition status is False and the update done ⇒ True; True ⇒ no write', () => {
    const falsePod = gated({
      status: { conditions: [{ type: INPLACE_UPDATE_READY, status: 'False' }] },
    });
    const truePod = gated({
      status: { conditions: [{ type: INPLACE_UPDATE_READY, status: 'True' }] },
    });
    expect(planRefreshUpdateState(falsePod, now)?.status).toBe('True');
    expect(planRefreshUpdateState(truePod, now)).toBeUndefined();
  });

  it('not in-place updated yet (still running) ⇒ nothing', () => {
    const running = withState(
      gated({
        status: {
          conditions: [{ type: INPLACE_UPDATE_READY, status: 'False' }],
        },
      }),
      ''
    );
    expect(planRefreshUpdateState(running, now)).toBeUndefined();
  });
});

describe('planInPlaceUpdate', () => {
  it('stops the pod serving, then relabels it, records the old imageIDs and patches the images', () => {
    // Prepare
    const pod = gated({
      status: {
        containerStatuses: [
          {
            name: 'c',
            image: 'a:1',
            imageID: 'id1',
            ready: true,
            restartCount: 0,
          },
        ],
      },
    });
    // Act
    const plan = planInPlaceUpdate(
      pod,
      new Map([
        ['c', 'a:2'],
        ['gone', 'x:1'],
      ]),
      'v2',
      'T'
    );
    // Assess
    expect(JSON.parse(plan.statusPatch).status.conditions[0]).toMatchObject({
      type: INPLACE_UPDATE_READY,
      status: 'False',
      reason: 'StartInPlaceUpdate',
    });
    const podPatch = JSON.parse(plan.podPatch);
    expect(podPatch.metadata.labels).toEqual({
      'controller-revision-hash': 'v2',
    });
    expect(
      JSON.parse(podPatch.metadata.annotations[INPLACE_UPDATE_STATE_ANNOTATION])
    ).toEqual({
      revision: 'v2',
      updateTimestamp: 'T',
      lastContainerStatuses: { c: { imageID: 'id1' }, gone: { imageID: '' } },
      updateImages: true,
    });
    expect(podPatch.spec.containers).toEqual([
      { name: 'c', image: 'a:2' },
      { name: 'gone', image: 'x:1' },
    ]);
  });
});

describe('readiness gate and availability', () => {
  it('counts a gated pod available only while its condition is absent or True', () => {
    const ready = markPodReady(gated(), 0);
    const updating = markPodReady(gated(), 0);
    updating.status?.conditions?.push({
      type: INPLACE_UPDATE_READY,
      status: 'False',
    });
    expect(isInPlaceReady(ready)).toBe(true);
    expect(isDaemonPodAvailable(ready, 0, 1)).toBe(true);
    expect(isDaemonPodAvailable(updating, 0, 1)).toBe(false);
  });

  it('is on only for RollingUpdate with InPlaceIfPossible', () => {
    const ds = newDaemonSet('x');
    expect(isInPlaceIfPossible(ds)).toBe(false);
    if (ds.spec) {
      ds.spec.updateStrategy = {
        type: 'RollingUpdate',
        rollingUpdate: { rollingUpdateType: 'InPlaceIfPossible' },
      };
    }
    expect(isInPlaceIfPossible(ds)).toBe(true);
  });
});
