/**
 * syncDaemonSet under failing ports: each failure is surfaced as upstream
 * surfaces it (error ⇒ retry with backoff), expectations stay consistent, and
 * nothing is done twice.
 */
import { describe, expect, it } from 'vitest';
import {
  KubeApiError,
  NAMESPACE_TERMINATING_CAUSE,
  UnsettledExpectationsError,
} from '#lib/errors.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import {
  makeFailedPods,
  makeNodes,
  makePods,
  markPodReady,
  newDaemonSet,
  newPod,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';
import {
  addDaemonSet,
  keyOf,
  newHarness,
  stored,
  sync,
} from '../../../helpers/harness.js';

const apiError = (
  reason: 'Forbidden' | 'NotFound' | 'Invalid' | 'Conflict',
  causes: string[] = []
) =>
  new KubeApiError(`${reason} from the fake`, {
    reason,
    statusCode: 400,
    causes,
  });

describe('syncDaemonSet when ports fail', () => {
  describe('adoption', () => {
    it.each([
      { name: 'the DaemonSet is gone', fresh: () => undefined },
      {
        name: 'a new DaemonSet took the name',
        fresh: (ds: DaemonSet | undefined) => ({
          ...ds,
          metadata: { ...ds?.metadata, uid: 'other' },
        }),
      },
    ])('refuses to adopt orphans when $name', async ({ fresh }) => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('foo'));
      h.cluster.nodes = makeNodes(0, 1);
      h.cluster.pods = [newPod('orphan-', 'node-0', simpleDaemonSetLabel)];
      h.cluster.freshDaemonSet = fresh;
      // Act
      const { error } = await sync(h, ds);
      // Assess
      expect(error?.message).toMatch(/claiming objects/);
      expect(h.cluster.created).toHaveLength(0);
      expect(h.cluster.pods[0]?.metadata?.ownerReferences).toBeUndefined();
    });

    it('recreates nothing when the first adoption succeeds and checks the owner once', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('foo'));
      h.cluster.nodes = makeNodes(0, 2);
      h.cluster.pods = [
        newPod('orphan-', 'node-0', simpleDaemonSetLabel),
        newPod('orphan-', 'node-1', simpleDaemonSetLabel),
      ];
      // Act
      const { error } = await sync(h, ds);
      // Assess
      expect(error).toBeUndefined();
      expect(h.cluster.created).toHaveLength(0);
      expect(
        h.cluster.pods.every(
          (p) => p.metadata?.ownerReferences?.[0]?.uid === ds.metadata?.uid
        )
      ).toBe(true);
    });
  });

  describe('release', () => {
    it('ignores Invalid (no longer ours) and fails on other errors', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('foo'));
      h.cluster.nodes = makeNodes(0, 1);
      h.cluster.pods = makePods('node-0', { other: 'labels' }, ds, 1);
      h.cluster.patchError = apiError('Invalid');
      // Act
      const ignored = await sync(h, ds);
      h.cluster.patchError = apiError('Conflict');
      await h.expectations.deleteExpectations(keyOf(ds));
      const failed = await sync(h, ds);
      // Assess
      expect(ignored.error).toBeUndefined();
      expect(failed.error?.message).toMatch(/release/);
    });
  });

  describe('deletes', () => {
    it('fails the sync on a delete error and lowers the deletion expectation', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('foo'));
      h.cluster.nodes = makeNodes(0, 1);
      h.cluster.pods = makePods('node-0', simpleDaemonSetLabel, ds, 2);
      h.cluster.deleteError = apiError('Forbidden');
      // Act
      const { error } = await sync(h, ds);
      // Assess
      expect(error).toBeInstanceOf(AggregateError);
      expect(await h.expectations.satisfiedExpectations(keyOf(ds))).toBe(true);
    });

    it('treats NotFound on delete as done', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('foo'));
      h.cluster.nodes = makeNodes(0, 1);
      h.cluster.pods = makePods('node-0', simpleDaemonSetLabel, ds, 2);
      h.cluster.deleteError = apiError('NotFound');
      // Act
      const { error } = await sync(h, ds);
      // Assess
      expect(error).toBeUndefined();
      expect(await h.expectations.satisfiedExpectations(keyOf(ds))).toBe(true);
    });
  });

  describe('creates', () => {
    it('ignores NamespaceTerminating and leaves the expectation to time out', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('foo'));
      h.cluster.nodes = makeNodes(0, 3);
      h.cluster.createError = apiError('Forbidden', [
        NAMESPACE_TERMINATING_CAUSE,
      ]);
      // Act
      const { error } = await sync(h, ds);
      // Assess
      expect(error).toBeUndefined();
      expect(await h.expectations.satisfiedExpectations(keyOf(ds))).toBe(false);
      h.clock.step(5 * 60_000 + 1);
      expect(await h.expectations.satisfiedExpectations(keyOf(ds))).toBe(true);
    });

    it('notes the newest created pod once, and fails the sync (retried) when the note cannot be written', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('foo'));
      h.cluster.nodes = makeNodes(0, 3);
      const noted: string[] = [];
      h.deps.noteOwnPods = async (rv) => {
        noted.push(rv);
        throw new Error('ProvisionedThroughputExceededException');
      };
      // Act
      const { error } = await sync(h, ds);
      // Assess: the pods stand; the sync is retried, as for a failed create.
      expect(noted).toEqual(['3']);
      expect(h.cluster.pods).toHaveLength(3);
      expect(error?.message).toContain('ProvisionedThroughputExceeded');
    });

    it.each([
      {
        name: 'no answer (a POST committed, its answer cut)',
        error: new KubeApiError('create pod: socket hang up', {
          reason: 'Unreachable',
          statusCode: 0,
          write: true,
        }),
        readsLatest: 1,
      },
      {
        name: 'a 5xx',
        error: new KubeApiError(
          'create pod: 500 etcdserver: request timed out',
          {
            reason: 'ServerError',
            statusCode: 500,
            write: true,
          }
        ),
        readsLatest: 1,
      },
      { name: 'a refusal (403)', error: apiError('Forbidden'), readsLatest: 0 },
    ])(
      'one-daemon-pod-per-node: a create that failed with $name makes the next syncs read the latest state $readsLatest time(s) (campaign seed 80707)',
      async ({ error, readsLatest }) => {
        // Prepare: the answer of a create is lost; its expectation is lowered
        // as upstream lowers it, so only a fresh read can show the pod.
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSet('foo'));
        h.cluster.nodes = makeNodes(0, 3);
        h.cluster.createError = error;
        let asked = 0;
        h.deps.readLatestNext = async () => {
          asked++;
        };
        // Act
        const result = await sync(h, ds);
        // Assess
        expect(result.error).toBeInstanceOf(AggregateError);
        expect(asked).toBe(readsLatest);
      }
    );

    it('notes nothing when it creates nothing', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('foo'));
      h.cluster.nodes = makeNodes(0, 2);
      await sync(h, ds);
      const noted: string[] = [];
      h.deps.noteOwnPods = async (rv) => {
        noted.push(rv);
      };
      // Act
      const { error } = await sync(h, ds);
      // Assess
      expect(error).toBeUndefined();
      expect(noted).toEqual([]);
    });
  });

  describe('expectations', () => {
    /** Expectations whose write lands and then reports a failure. */
    const landingThenFailing = (h: ReturnType<typeof newHarness>) => {
      const set = h.expectations.setExpectations.bind(h.expectations);
      h.expectations.setExpectations = async (key, adds, dels) => {
        await set(key, adds, dels);
        throw new Error('TimeoutError: the answer was lost');
      };
    };

    it('converges-after-faults: drops expectations whose write failed but landed, so the next sync creates (campaign seed 371)', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('foo'));
      h.cluster.nodes = makeNodes(0, 3);
      landingThenFailing(h);
      // Act
      const { error } = await sync(h, ds);
      // Assess: the sync failed before any create, and left nothing expected.
      expect(error?.message).toContain('TimeoutError');
      expect(h.cluster.pods).toHaveLength(0);
      expect(await h.expectations.satisfiedExpectations(keyOf(ds))).toBe(true);
    });

    it('ends the attempt as a dead one when the failed expectations cannot be dropped either', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('foo'));
      h.cluster.nodes = makeNodes(0, 3);
      landingThenFailing(h);
      h.expectations.deleteExpectations = async () => {
        throw new Error('ThrottlingException');
      };
      // Act
      const { error } = await sync(h, ds);
      // Assess
      expect(error).toBeInstanceOf(UnsettledExpectationsError);
      expect(error?.message).toContain('ThrottlingException');
      expect(h.cluster.pods).toHaveLength(0);
    });
  });

  describe('expectations lowered after failed calls', () => {
    /** Lowerings that all fail, counted, and a next sync that is told. */
    const throttledLowering = (h: ReturnType<typeof newHarness>) => {
      const state = { failed: 0, toldNext: 0 };
      h.expectations.lowerExpectations = async () => {
        state.failed++;
        throw new Error('ThrottlingException: injected');
      };
      h.deps.readLatestNext = async () => {
        state.toldNext++;
      };
      return state;
    };

    it.each([
      {
        name: 'a failed create',
        fault: (h: ReturnType<typeof newHarness>) => {
          h.cluster.nodes = makeNodes(0, 3);
          h.cluster.createError = apiError('Forbidden');
        },
      },
      {
        name: 'a failed delete',
        fault: (h: ReturnType<typeof newHarness>, ds: DaemonSet) => {
          h.cluster.nodes = makeNodes(0, 1);
          h.cluster.pods = makePods('node-0', simpleDaemonSetLabel, ds, 2);
          h.cluster.deleteError = apiError('Forbidden');
        },
      },
    ])(
      'converges-after-faults: when lowering the expectation of $name fails, tells the key’s next sync to drop them (campaign seed 230612)',
      async ({ fault }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSet('foo'));
        fault(h, ds);
        const lowering = throttledLowering(h);
        // Act
        const { error } = await sync(h, ds);
        // Assess: the record still waits; the next sync is told.
        expect(error?.message).toContain('ThrottlingException');
        expect(lowering).toMatchObject({ failed: 1, toldNext: 1 });
        expect(await h.expectations.satisfiedExpectations(keyOf(ds))).toBe(
          false
        );
      }
    );

    it.each([
      {
        name: 'the next sync cannot be told either',
        readLatestNext: async () => {
          throw new Error('the ledger answered 500');
        },
        message: 'the ledger answered 500',
      },
      {
        name: 'no later sync can be told (deps without readLatestNext)',
        readLatestNext: undefined,
        message: 'no later sync to tell',
      },
    ])(
      'ends the attempt as a dead one when $name',
      async ({ readLatestNext, message }) => {
        // Prepare
        const h = newHarness();
        const ds = addDaemonSet(h, newDaemonSet('foo'));
        h.cluster.nodes = makeNodes(0, 3);
        h.cluster.createError = apiError('Forbidden');
        throttledLowering(h);
        if (readLatestNext === undefined) delete h.deps.readLatestNext;
        else h.deps.readLatestNext = readLatestNext;
        // Act
        const { error } = await sync(h, ds);
        // Assess
        expect(error).toBeInstanceOf(UnsettledExpectationsError);
        expect(error?.message).toContain(message);
      }
    );
  });

  describe('status', () => {
    it('fails when the DaemonSet vanished between the failed write and the retry', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('foo'));
      h.cluster.nodes = makeNodes(0, 1);
      h.cluster.statusFailures = 1;
      h.cluster.freshDaemonSet = () => undefined;
      // Act
      const { error } = await sync(h, ds);
      // Assess
      expect(error?.message).toMatch(/vanished during status update/);
    });

    it('writes the observedGeneration it synced, not the newer one a retry reads (storeDaemonSetStatus)', async () => {
      // Prepare: the spec changes (generation 2) while the first write fails.
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('foo'));
      h.cluster.nodes = makeNodes(0, 1);
      h.cluster.statusFailures = 1;
      h.cluster.freshDaemonSet = (stored) => {
        const newer = structuredClone(stored);
        if (newer?.metadata) newer.metadata.generation = 2;
        return newer;
      };
      // Act
      const { error } = await sync(h, ds);
      // Assess
      expect(error).toBeUndefined();
      expect(h.cluster.statusUpdates.at(-1)?.status?.observedGeneration).toBe(
        1
      );
    });

    it('reports the sync error when both the sync and the status write fail', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('foo'));
      h.cluster.nodes = makeNodes(0, 1);
      h.cluster.createError = apiError('Forbidden');
      h.cluster.statusFailures = 2;
      // Act
      const { error } = await sync(h, ds);
      // Assess
      expect(error).toBeInstanceOf(AggregateError);
      expect(
        h.logger.lines.some(
          (l) => l.level === 'warn' && /status update failed/.test(l.message)
        )
      ).toBe(true);
    });
  });

  describe('requeue', () => {
    it('asks for the sooner of failed-pod backoff and minReadySeconds', async () => {
      // Prepare
      const h = newHarness();
      const ds = newDaemonSet('foo');
      if (ds.spec) ds.spec.minReadySeconds = 30;
      // The backoff key carries status.observedGeneration (upstream); keep it
      // stable so both syncs share one key.
      ds.status = {
        ...ds.status,
        observedGeneration: 1,
      } as DaemonSet['status'];
      addDaemonSet(h, ds);
      h.cluster.nodes = makeNodes(0, 2);
      const failed = makeFailedPods('node-0', simpleDaemonSetLabel, ds, 1);
      const ready = makePods('node-1', simpleDaemonSetLabel, ds, 1).map((p) =>
        markPodReady(p, h.clock.now())
      );
      h.cluster.pods = [...failed, ...ready];
      await sync(h, ds); // deletes the failed pod, starts its backoff (1 s)
      h.cluster.pods = [
        ...makeFailedPods('node-0', simpleDaemonSetLabel, ds, 1),
        ...ready,
      ];
      await h.expectations.deleteExpectations(keyOf(ds));
      // Act
      const { result } = await sync(h, ds);
      // Assess
      expect(result).toEqual({ requeueAfterMs: 1000, read: expect.anything() });
    });

    it('requeues for minReadySeconds while expectations are unmet, without raising observedGeneration', async () => {
      // Prepare
      const h = newHarness();
      const ds = newDaemonSet('foo');
      if (ds.spec) ds.spec.minReadySeconds = 30;
      addDaemonSet(h, ds);
      h.cluster.nodes = makeNodes(0, 1);
      h.cluster.pods = makePods('node-0', simpleDaemonSetLabel, ds, 1).map(
        (p) => markPodReady(p, h.clock.now())
      );
      await h.expectations.setExpectations(keyOf(ds), 1, 0);
      // Act
      const { result } = await sync(h, ds);
      // Assess
      expect(result).toEqual({
        requeueAfterMs: 30_000,
        read: expect.anything(),
      });
      expect(stored(h, ds).status?.observedGeneration).toBeUndefined();
      expect(stored(h, ds).status?.numberReady).toBe(1);
    });
  });
});
