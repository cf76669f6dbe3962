/**
 * A sync harness over the fakes: the TypeScript counterpart of upstream's
 * `newTestController` + `expectSyncDaemonSets`.
 */
import { expect } from 'vitest';
import { MemoryBackoffStore } from '#lib/adapters/memory/memory-backoff-store.js';
import { MemoryExpectationsStore } from '#lib/adapters/memory/memory-expectations-store.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import type { SyncDeps } from '#lib/sync/context.js';
import { type SyncResult, syncDaemonSet } from '#lib/sync/sync-daemon-set.js';
import { FakeClock } from './fakes/fake-clock.js';
import { FakeCluster } from './fakes/fake-cluster.js';
import { FakeEventRecorder } from './fakes/fake-event-recorder.js';
import { FakeLogger } from './fakes/fake-logger.js';

export const CLUSTER = 'test';

export interface Harness {
  clock: FakeClock;
  cluster: FakeCluster;
  events: FakeEventRecorder;
  expectations: MemoryExpectationsStore;
  backoff: MemoryBackoffStore;
  logger: FakeLogger;
  deps: SyncDeps;
}

/** Returns fresh fakes wired into SyncDeps. */
export const newHarness = (): Harness => {
  const clock = new FakeClock();
  const expectations = new MemoryExpectationsStore({ clock });
  const cluster = new FakeCluster(clock, expectations, CLUSTER);
  const events = new FakeEventRecorder();
  const backoff = new MemoryBackoffStore();
  const logger = new FakeLogger();
  const deps: SyncDeps = {
    reader: cluster,
    podControl: cluster,
    revisionControl: cluster,
    statusWriter: cluster,
    events,
    expectations,
    failedPodBackoff: backoff,
    clock,
    logger,
  };
  return { clock, cluster, events, expectations, backoff, logger, deps };
};

/** Returns the key of a DaemonSet in the harness cluster. */
export const keyOf = (ds: DaemonSet): string =>
  `${CLUSTER}/${ds.metadata?.namespace}/${ds.metadata?.name}`;

/** Runs one sync; returns its result or error, never throws. */
export const sync = async (
  h: Harness,
  ds: DaemonSet
): Promise<{ result?: SyncResult; error?: Error }> => {
  try {
    return { result: await syncDaemonSet(keyOf(ds), h.deps) };
  } catch (e) {
    return { error: e as Error };
  }
};

/** Returns the stored copy of the DaemonSet (with the status we wrote). */
export const stored = (h: Harness, ds: DaemonSet): DaemonSet =>
  h.cluster.daemonSets.find(
    (d) => d.metadata?.uid === ds.metadata?.uid
  ) as DaemonSet;

/**
 * Syncs once and asserts the creates, deletes and controller events of that
 * sync, then clears the records (upstream `expectSyncDaemonSets`).
 */
export const expectSync = async (
  h: Harness,
  ds: DaemonSet,
  want: { creates: number; deletes: number; events: number }
): Promise<{ result?: SyncResult; error?: Error }> => {
  const eventsBefore = h.events.events.length;
  const outcome = await sync(h, ds);
  expect({
    creates: h.cluster.created.length,
    deletes: h.cluster.deleted.length,
    events: h.events.events.length - eventsBefore,
  }).toEqual(want);
  for (const pod of h.cluster.created) {
    expect(pod.metadata?.ownerReferences).toEqual([
      expect.objectContaining({
        uid: ds.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      }),
    ]);
  }
  h.cluster.clearRecords();
  return outcome;
};

/**
 * Drops expectations and clears records (upstream `clearExpectations`), so
 * the next sync acts as after the watch caught up.
 */
export const clearExpectations = async (
  h: Harness,
  ds: DaemonSet
): Promise<void> => {
  h.cluster.clearRecords();
  await h.expectations.deleteExpectations(keyOf(ds));
};

/** Adds the DaemonSet to the cluster and returns it. */
export const addDaemonSet = (h: Harness, ds: DaemonSet): DaemonSet => {
  h.cluster.daemonSets.push(ds);
  return ds;
};
