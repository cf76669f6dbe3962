/** kubectl's DaemonSet rollout status messages, and the partitioned wording. */
import { describe, expect, it } from 'vitest';
import { rolloutStatus } from '#lib/cli/plugin/rollout-status.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import { withInvalidSpec } from '#lib/reconcile/status.js';

const ds = (
  status: NonNullable<DaemonSet['status']>,
  generation = 2,
  partition?: number
): DaemonSet => ({
  metadata: { name: 'agent', generation },
  spec: {
    selector: {},
    template: {},
    updateStrategy: {
      type: 'RollingUpdate',
      rollingUpdate: partition === undefined ? {} : { partition },
    },
  },
  status,
});

const counts = (updated: number, available: number) => ({
  observedGeneration: 2,
  desiredNumberScheduled: 3,
  currentNumberScheduled: 3,
  numberMisscheduled: 0,
  numberReady: 3,
  updatedNumberScheduled: updated,
  numberAvailable: available,
});

describe('rolloutStatus', () => {
  it.each([
    {
      name: 'spec not observed',
      obj: ds({ ...counts(3, 3), observedGeneration: 1 }),
      message: 'Waiting for daemon set spec update to be observed...\n',
      done: false,
    },
    {
      name: 'pods being updated',
      obj: ds(counts(1, 3)),
      message:
        'Waiting for daemon set "agent" rollout to finish: 1 out of 3 new pods have been updated...\n',
      done: false,
    },
    {
      name: 'updated pods not yet available',
      obj: ds(counts(3, 2)),
      message:
        'Waiting for daemon set "agent" rollout to finish: 2 of 3 updated pods are available...\n',
      done: false,
    },
    {
      name: 'done',
      obj: ds(counts(3, 3)),
      message: 'daemon set "agent" successfully rolled out\n',
      done: true,
    },
    {
      name: 'partition not reached',
      obj: ds(counts(0, 3), 2, 2),
      message:
        'Waiting for partitioned roll out to finish: 0 out of 1 new pods have been updated...\n',
      done: false,
    },
    {
      name: 'partition reached',
      obj: ds(counts(1, 3), 2, 2),
      message:
        'partitioned roll out complete: 1 new pods have been updated...\n',
      done: true,
    },
  ])('$name', ({ obj, message, done }) => {
    expect(rolloutStatus(obj)).toEqual({ message, done });
  });
});

describe('rolloutStatus with an InvalidSpec condition', () => {
  const invalid = (generation: number) =>
    withInvalidSpec(
      ds(counts(0, 0), generation),
      'spec.selector: Invalid value: x',
      'T'
    ) as DaemonSet;

  it('fails on the generation the reconciler refused, like kubectl past a progress deadline', () => {
    expect(() => rolloutStatus(invalid(2))).toThrow(
      'daemon set "agent" has an invalid spec: spec.selector: Invalid value: x'
    );
  });

  it('waits instead once a newer spec was written', () => {
    const fixed = invalid(2);
    if (fixed.metadata) fixed.metadata.generation = 3;
    expect(rolloutStatus(fixed)).toEqual({
      message: 'Waiting for daemon set spec update to be observed...\n',
      done: false,
    });
  });
});
