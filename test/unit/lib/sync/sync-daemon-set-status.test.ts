/**
 * Ports the create-error and status sync tests of upstream
 * pkg/controller/daemon/daemon_controller_test.go. Upstream captures the
 * DaemonSet sent to `UpdateStatus` with a clientset reactor; we read the
 * fake's recorded status writes and the stored object.
 */
import { describe, expect, it } from 'vitest';
import { KubeApiError } from '#lib/errors.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import {
  makeNodes,
  makePods,
  markPodReady,
  simpleDaemonSetLabel,
  simpleNodeLabel,
  updateStrategies,
} from '#test/helpers/builders.js';
import {
  expectSyncOk,
  newDaemonSetWith,
} from '#test/helpers/daemon-scenario.js';
import {
  addDaemonSet,
  expectSync,
  keyOf,
  newHarness,
  stored,
  sync,
} from '#test/helpers/harness.js';

const CREATE_LIMIT = 10;

/** Upstream's bound: slow-start batches summed until they pass the limit. */
const slowStartCallLimit = (limit: number): number => {
  let total = 0;
  for (let pass = 0; total <= limit; pass++) total += 1 << pass;
  return total;
};

const lastStatusWrite = (h: ReturnType<typeof newHarness>): DaemonSet => {
  const last = h.cluster.statusUpdates.at(-1);
  if (last === undefined) throw new Error('no status write');
  return last;
};

describe('syncDaemonSet', () => {
  describe('when pod creation fails', () => {
    it.each(updateStrategies())(
      'TestSimpleDaemonSetPodCreateErrors ($name): stops creating early under a quota and still reports status',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy));
        h.cluster.createLimit = CREATE_LIMIT;
        h.cluster.nodes.push(...makeNodes(0, CREATE_LIMIT * 10));
        // Act
        const { error } = await sync(h, ds);
        // Assess
        expect(error).toBeInstanceOf(AggregateError);
        expect(h.cluster.created).toHaveLength(CREATE_LIMIT);
        expect(h.cluster.createCallCount).toBeLessThanOrEqual(
          slowStartCallLimit(CREATE_LIMIT)
        );
        expect(lastStatusWrite(h).status).toMatchObject({
          desiredNumberScheduled: CREATE_LIMIT * 10,
          currentNumberScheduled: CREATE_LIMIT,
          updatedNumberScheduled: CREATE_LIMIT,
        });
      }
    );

    it.each(updateStrategies())(
      'TestDaemonSetPodCreateExpectationsError ($name): lowers expectations for skipped creates so they are satisfied again',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy));
        h.cluster.createLimit = CREATE_LIMIT;
        h.cluster.nodes.push(...makeNodes(0, 100));
        // Act
        await expectSync(h, ds, {
          creates: CREATE_LIMIT,
          deletes: 0,
          events: 0,
        });
        // Assess
        expect(await h.expectations.satisfiedExpectations(keyOf(ds))).toBe(
          true
        );
      }
    );

    const statusErrorCases = [
      { desc: 'sync error', syncErr: true, statusErr: false, wins: 'sync' },
      { desc: 'status error', syncErr: false, statusErr: true, wins: 'status' },
      {
        desc: 'sync and status error',
        syncErr: true,
        statusErr: true,
        wins: 'sync',
      },
    ];
    it.each(
      statusErrorCases.flatMap((c) =>
        updateStrategies().map((s) => ({ ...c, ...s }))
      )
    )(
      'TestSimpleDaemonSetUpdatesStatusError ($desc, $name): returns the sync error before the status error',
      async ({ strategy, syncErr, statusErr, wins }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy));
        h.cluster.nodes.push(...makeNodes(0, 1));
        const createError = new Error('sync error');
        if (syncErr) h.cluster.createError = createError;
        if (statusErr) h.cluster.statusFailures = Number.POSITIVE_INFINITY;
        // Act
        const { error } = await sync(h, ds);
        // Assess: upstream's fake records the template even when the create
        // fails (1 create); ours records only pods that exist, so we count
        // create calls instead.
        expect(h.cluster.createCallCount).toBe(1);
        if (wins === 'sync') {
          expect(error).toBeInstanceOf(AggregateError);
          expect((error as AggregateError).errors).toContain(createError);
        } else {
          expect(error).toBeInstanceOf(KubeApiError);
          expect(error).toMatchObject({ reason: 'Conflict' });
        }
      }
    );

    it.each(updateStrategies())(
      'TestUpdateStatusDespitePodCreationFailure ($name): writes status although every create failed (integration test, here at unit level)',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy));
        h.cluster.nodes.push(...makeNodes(0, 3));
        h.cluster.createError = new KubeApiError('quota', {
          reason: 'Forbidden',
          statusCode: 403,
        });
        // Act
        const { error } = await sync(h, ds);
        // Assess
        expect(error).toBeDefined();
        expect(stored(h, ds).status).toMatchObject({
          desiredNumberScheduled: 3,
          currentNumberScheduled: 0,
          numberUnavailable: 3,
          observedGeneration: 1,
        });
      }
    );
  });

  describe('status', () => {
    it.each(updateStrategies())(
      'TestSimpleDaemonSetUpdatesStatusAfterLaunchingPods ($name): reports the pods created in the same sync',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy));
        h.cluster.nodes.push(...makeNodes(0, 5));
        // Act
        await expectSyncOk(h, ds, { creates: 5, deletes: 0, events: 0 });
        // Assess
        expect(lastStatusWrite(h).status?.currentNumberScheduled).toBe(5);
      }
    );

    it.each(updateStrategies())(
      'TestNumberReadyStatus ($name): counts pods once they turn Ready',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith(strategy));
        h.cluster.nodes.push(...makeNodes(0, 2, simpleNodeLabel));
        h.cluster.pods.push(
          ...makePods('node-0', simpleDaemonSetLabel, ds, 1),
          ...makePods('node-1', simpleDaemonSetLabel, ds, 1)
        );
        // Act
        await expectSyncOk(h, ds, { creates: 0, deletes: 0, events: 0 });
        // Assess
        expect(lastStatusWrite(h).status?.numberReady).toBe(0);
        // Act
        for (const pod of h.cluster.pods) markPodReady(pod, h.clock.now());
        await expectSyncOk(h, ds, { creates: 0, deletes: 0, events: 0 });
        // Assess
        expect(lastStatusWrite(h).status).toMatchObject({
          numberReady: 2,
          numberAvailable: 2,
        });
      }
    );

    it.each(updateStrategies())(
      'TestObservedGeneration ($name): sets observedGeneration to the synced generation',
      async ({ strategy }) => {
        // Prepare
        const h = newHarness();
        const ds = newDaemonSetWith(strategy);
        ds.metadata = { ...ds.metadata, generation: 1 };
        addDaemonSet(h, ds);
        h.cluster.nodes.push(...makeNodes(0, 1, simpleNodeLabel));
        h.cluster.pods.push(...makePods('node-0', simpleDaemonSetLabel, ds, 1));
        // Act
        await expectSyncOk(h, ds, { creates: 0, deletes: 0, events: 0 });
        // Assess
        expect(lastStatusWrite(h).status?.observedGeneration).toBe(
          ds.metadata?.generation
        );
      }
    );

    const getError = new KubeApiError('fake get error', {
      reason: 'ServerError',
      statusCode: 500,
    });
    it.each([
      {
        name: 'succeed immediately',
        updateErrors: 0,
        getFails: false,
        updates: 1,
        gets: 0,
        fails: undefined,
      },
      {
        name: 'succeed after one update failure',
        updateErrors: 1,
        getFails: false,
        updates: 2,
        gets: 1,
        fails: undefined,
      },
      {
        name: 'fail after two update failures',
        updateErrors: 2,
        getFails: false,
        updates: 2,
        gets: 1,
        fails: 'update',
      },
      {
        name: 'fail after one update failure and one get failure',
        updateErrors: 1,
        getFails: true,
        updates: 1,
        gets: 1,
        fails: 'get',
      },
    ])(
      'TestStoreDaemonSetStatus ($name): retries a failed status write once after a fresh GET',
      async ({ updateErrors, getFails, updates, gets, fails }) => {
        // Prepare (upstream calls storeDaemonSetStatus directly; we count
        // the status writes and fresh GETs one sync makes)
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSetWith({ type: 'OnDelete' }));
        h.cluster.nodes.push(...makeNodes(0, 1));
        h.cluster.statusFailures = updateErrors;
        if (getFails) h.cluster.freshGetError = getError;
        // Act
        const { error } = await sync(h, ds);
        // Assess
        expect(h.cluster.statusUpdates).toHaveLength(updates);
        expect(h.cluster.freshGets).toBe(gets);
        if (fails === 'get') expect(error).toBe(getError);
        else if (fails === 'update') {
          expect(error).toMatchObject({ reason: 'Conflict' });
        } else expect(error).toBeUndefined();
      }
    );
  });
  describe('when expectations are unmet', () => {
    it('updates status without creating pods or observing the generation (upstream syncDaemonSet step 7)', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSetWith({ type: 'OnDelete' }));
      h.cluster.nodes.push(...makeNodes(0, 3));
      await h.expectations.setExpectations(keyOf(ds), 1, 0);
      // Act
      await expectSyncOk(h, ds, { creates: 0, deletes: 0, events: 0 });
      // Assess
      expect(lastStatusWrite(h).status).toMatchObject({
        desiredNumberScheduled: 3,
        currentNumberScheduled: 0,
      });
      expect(lastStatusWrite(h).status?.observedGeneration).toBeUndefined();
    });

    it('drops the expectations of a DaemonSet that is gone (upstream syncDaemonSet step 2)', async () => {
      // Prepare
      const h = newHarness();
      const ds = newDaemonSetWith({ type: 'OnDelete' });
      await h.expectations.setExpectations(keyOf(ds), 1, 0);
      // Act
      await expectSyncOk(h, ds, { creates: 0, deletes: 0, events: 0 });
      // Assess
      expect(h.expectations.get(keyOf(ds))).toBeUndefined();
    });
  });
});
