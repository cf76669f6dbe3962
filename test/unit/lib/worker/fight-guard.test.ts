/**
 * FightGuard with a deployment's field manager: another deployment of this
 * product writing the same DaemonSets is a rival controller (F9) — two
 * stacks would sync one key at once and churn pods. Fences are scoped to the
 * DaemonSet first, the cluster once a second DaemonSet shows the rival.
 */
import { describe, expect, it } from 'vitest';
import { MemoryOwnershipStore } from '#lib/adapters/memory/memory-ownership-store.js';
import { fieldManagerFor } from '#lib/policy/identity.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import { LocalMetrics } from '#lib/wiring/local-runtime.js';
import { FightGuard } from '#lib/worker/fight-guard.js';
import {
  newDaemonSet,
  newPod,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';
import { FakeClock } from '../../../helpers/fakes/fake-clock.js';
import { FakeEventRecorder } from '../../../helpers/fakes/fake-event-recorder.js';
import { FakeLogger } from '../../../helpers/fakes/fake-logger.js';

const PROD = fieldManagerFor('dsr-prod-eu-west-1');
const DEV = fieldManagerFor('dsr-dev-eu-west-1');

/** A DaemonSet whose status counters `writers` wrote, in that order. */
const statusWrittenBy = (...writers: [string, string][]): DaemonSet => {
  const ds = newDaemonSet('agent');
  ds.metadata = {
    ...ds.metadata,
    managedFields: writers.map(([manager, time]) => ({
      manager,
      operation: 'Update',
      subresource: 'status',
      time,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { 'f:numberReady': {} } },
    })) as never,
  };
  return ds;
};

/** A guard for the prod deployment, and two status writes by dev on `key`. */
const newGuard = () => {
  const clock = new FakeClock();
  const store = new MemoryOwnershipStore({ clock });
  const guard = new FightGuard({
    store,
    metrics: new LocalMetrics(),
    manager: PROD,
  });
  const twoSightings = async (key: string) => {
    for (const t of ['2026-01-01T00:00:05Z', '2026-01-01T00:00:09Z']) {
      const ds = statusWrittenBy([PROD, '2026-01-01T00:00:00Z'], [DEV, t]);
      await guard.inspect(
        key,
        { daemonSet: ds, pods: [] },
        new FakeEventRecorder(),
        new FakeLogger()
      );
    }
  };
  return { clock, store, guard, twoSightings };
};

describe('FightGuard', () => {
  it('fences the DaemonSet another deployment of the product keeps writing, and the cluster once a second DaemonSet shows it', async () => {
    // Prepare
    const { store, guard, twoSightings } = newGuard();
    // Act: two syncs of a each see a newer status write by the dev stack.
    await twoSightings('c1/default/a');
    const afterOne = {
      a: await guard.fenced('c1/default/a'),
      b: await guard.fenced('c1/default/b'),
      cluster: await store.getFence('c1'),
    };
    await twoSightings('c1/default/b');
    // Assess: a alone first; then the whole cluster.
    expect(afterOne.a).toMatchObject({ scope: 'daemonSet' });
    expect(afterOne.a?.reason).toContain(`status counters written by ${DEV}`);
    expect(afterOne.b).toBeUndefined();
    expect(afterOne.cluster).toBeUndefined();
    expect((await store.getFence('c1'))?.reason).toContain(
      'another DaemonSet controller is acting in cluster c1'
    );
    expect(await guard.fenced('c1/other/x')).toMatchObject({
      scope: 'cluster',
    });
  });

  it('lets a DaemonSet’s own fence end after an hour', async () => {
    // Prepare
    const { clock, guard, twoSightings } = newGuard();
    await twoSightings('c1/default/a');
    // Act
    clock.step(60 * 60_000 + 1);
    // Assess
    expect(await guard.fenced('c1/default/a')).toBeUndefined();
  });

  it('counts its own deployment’s writes as its own', async () => {
    // Prepare
    const { guard } = newGuard();
    // Act
    const ds = statusWrittenBy([PROD, '2026-01-01T00:00:09Z']);
    await guard.inspect(
      'c1/default/agent',
      { daemonSet: ds, pods: [] },
      new FakeEventRecorder(),
      new FakeLogger()
    );
    // Assess
    expect(await guard.fenced('c1/default/agent')).toBeUndefined();
  });

  it('leaves pods that a namespace user created with the DaemonSet’s ownerReference to the sync, with a warning Event, and fences nothing', async () => {
    // Prepare: kubectl creates a controlled pod in each of two DaemonSets.
    const { store, guard } = newGuard();
    const events = new FakeEventRecorder();
    // Act
    for (const key of ['c1/default/a', 'c1/default/b']) {
      for (const t of ['2026-01-01T00:00:05Z', '2026-01-01T00:00:09Z']) {
        const ds = statusWrittenBy([PROD, '2026-01-01T00:00:00Z']);
        const pod = newPod('agent-', 'n1', simpleDaemonSetLabel, ds);
        pod.metadata = {
          ...pod.metadata,
          creationTimestamp: t,
          managedFields: [
            {
              manager: 'kubectl-create',
              operation: 'Update',
              time: t,
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:metadata': { 'f:ownerReferences': {} } },
            },
          ],
        };
        await guard.inspect(
          key,
          { daemonSet: ds, pods: [pod] },
          events,
          new FakeLogger()
        );
      }
    }
    // Assess
    expect(await guard.fenced('c1/default/a')).toBeUndefined();
    expect(await guard.fenced('c1/default/b')).toBeUndefined();
    expect(await store.getFence('c1')).toBeUndefined();
    expect(events.events).toHaveLength(4);
    expect(events.events[0]).toMatchObject({
      type: 'Warning',
      reason: 'ForeignControlledPod',
    });
    expect(events.events[0]?.message).toContain('created by kubectl-create');
  });
});
