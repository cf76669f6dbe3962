/**
 * An unfence's resync request over runClusterBridge and the memory lease
 * store: the bridge queues every DaemonSet anew, past a key whose add fails,
 * and the request stays until every key was queued, so a failed run leaves
 * it to the next.
 */
import { describe, expect, it } from 'vitest';
import { MemoryBridgeLeaseStore } from '#lib/adapters/memory/memory-bridge-lease-store.js';
import { MemoryExpectationsStore } from '#lib/adapters/memory/memory-expectations-store.js';
import { MemoryNodeIndexStore } from '#lib/adapters/memory/memory-node-index-store.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { runClusterBridge } from '#lib/bridge/cluster-bridge.js';
import type { ClusterWatch, WatchEvent, WorkQueue } from '#lib/ports/index.js';
import type { KubeObject } from '#lib/reconcile/k8s/types.js';
import { newDaemonSet } from '../../../helpers/builders.js';
import { FakeLogger } from '../../../helpers/fakes/fake-logger.js';

const TTL_MS = 600;

/** Three DaemonSets, no other object, every watch quiet until aborted. */
const watch: ClusterWatch = {
  list: async <T extends KubeObject>(resource: string) => ({
    items: (resource === 'daemonSets'
      ? ['a', 'b', 'c'].map((n) => newDaemonSet(n))
      : []) as T[],
    resourceVersion: '1',
  }),
  currentVersion: async () => '1',
  watch: <T>(
    _r: string,
    _rv: string,
    _t: number,
    signal: AbortSignal
  ): AsyncIterable<WatchEvent<T>> => ({
    [Symbol.asyncIterator]: () => ({
      next: () =>
        new Promise((resolve) => {
          const end = () => resolve({ done: true, value: undefined });
          if (signal.aborted) end();
          signal.addEventListener('abort', end, { once: true });
        }),
    }),
  }),
};

/** A queue that records adds anew and fails the first `failures` of them. */
const queueFailing = (failures: number) => {
  const anew: string[] = [];
  let left = failures;
  const queue: WorkQueue = {
    add: async () => {},
    addAfter: async () => {},
    addAnew: async (key) => {
      if (left-- > 0) throw new Error('SQS SendMessage failed');
      anew.push(key);
    },
  };
  return { queue, anew };
};

const run = (
  leases: MemoryBridgeLeaseStore,
  holder: string,
  queue: WorkQueue
) =>
  runClusterBridge(
    {
      cluster: 'c1',
      ownerKind: 'DaemonSet',
      watch,
      queue,
      expectations: new MemoryExpectationsStore({ clock: systemClock }),
      leases,
      nodeIndex: new MemoryNodeIndexStore(),
      holder,
      clock: systemClock,
      logger: new FakeLogger(),
    },
    {
      mode: 'watch',
      // Under a second: the watches end at once, and the run with its checkpoint.
      deadlineMs: Date.now() + 700,
      resyncEveryMs: 3_600_000,
      leaseTtlMs: TTL_MS,
    }
  );

describe('runClusterBridge resync requests', () => {
  it('queues every DaemonSet anew past a failed add, and the next run queues them all again', async () => {
    // Prepare: a cluster bridged before (no first-run resync), then unfenced.
    const leases = new MemoryBridgeLeaseStore({ clock: systemClock });
    await leases.acquire('c1', 'earlier', TTL_MS);
    await leases.checkpoint(
      'c1',
      'earlier',
      {
        daemonSets: '1',
        pods: '1',
        revisions: '1',
        nodes: '1',
        resyncAtMs: String(Date.now()),
      },
      TTL_MS
    );
    await leases.release('c1', 'earlier');
    await leases.requestResync('c1');
    const failing = queueFailing(1);
    const next = queueFailing(0);
    const after = queueFailing(0);
    // Act
    const first = await run(leases, 'h1', failing.queue).catch(
      (e: unknown) => e
    );
    await run(leases, 'h2', next.queue);
    await run(leases, 'h3', after.queue);
    // Assess
    expect(first).toEqual(new Error('SQS SendMessage failed'));
    expect(failing.anew).toEqual(['c1/default/b', 'c1/default/c']);
    expect(next.anew).toEqual(['c1/default/a', 'c1/default/b', 'c1/default/c']);
    expect(after.anew).toEqual([]);
  });
});
