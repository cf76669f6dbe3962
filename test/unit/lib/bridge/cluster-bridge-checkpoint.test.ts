/**
 * The bridge's checkpoint stores resourceVersions that never run ahead of
 * the node index it stores (F10): an event handled while the index is
 * being saved must not be counted as checkpointed, or a successor would
 * resume after it with an index that does not include it.
 */
import { describe, expect, it } from 'vitest';
import { MemoryBridgeLeaseStore } from '#lib/adapters/memory/memory-bridge-lease-store.js';
import { MemoryExpectationsStore } from '#lib/adapters/memory/memory-expectations-store.js';
import { MemoryNodeIndexStore } from '#lib/adapters/memory/memory-node-index-store.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { runClusterBridge } from '#lib/bridge/cluster-bridge.js';
import type {
  ClusterWatch,
  ResourceVersions,
  SeenVersion,
  WatchEvent,
  WorkQueue,
} from '#lib/ports/index.js';
import type { NodeFacts } from '#lib/reconcile/event-keys/resumed.js';
import type { KubeObject, Node } from '#lib/reconcile/k8s/types.js';
import { newDaemonSet } from '../../../helpers/builders.js';
import { FakeLogger } from '../../../helpers/fakes/fake-logger.js';

const node = (label: string, rv: string): Node => ({
  metadata: { name: 'n1', labels: { a: label }, resourceVersion: rv },
});

/** Resolves once `signal` aborts. */
const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });

/** A watch that brings nothing and ends when `signal` aborts. */
const quietUntil = <T>(signal: AbortSignal): AsyncIterable<WatchEvent<T>> => ({
  [Symbol.asyncIterator]: () => ({
    next: async () => {
      await aborted(signal);
      return { done: true, value: undefined };
    },
  }),
});

/** The memory lease store, with `checkpoint` replaced. */
const leasesWith = (
  checkpoint: (
    cluster: string,
    holder: string,
    versions: ResourceVersions,
    ttlMs: number
  ) => ReturnType<MemoryBridgeLeaseStore['checkpoint']>
) => {
  const leases = new MemoryBridgeLeaseStore({ clock: systemClock });
  return {
    acquire: leases.acquire.bind(leases),
    release: leases.release.bind(leases),
    requestResync: leases.requestResync.bind(leases),
    forget: leases.forget.bind(leases),
    peek: leases.peek.bind(leases),
    recordFailure: leases.recordFailure.bind(leases),
    claimTakeOver: leases.claimTakeOver.bind(leases),
    completeResync: leases.completeResync.bind(leases),
    checkpoint,
    store: leases,
  };
};

/** Runs cluster c1's bridge for 1.5 s over `watch`, `leases` and `nodeIndex`. */
const runBridge = (
  watch: ClusterWatch,
  leases: ReturnType<typeof leasesWith>,
  nodeIndex: MemoryNodeIndexStore,
  expectations = new MemoryExpectationsStore({ clock: systemClock }),
  queue: WorkQueue = {
    add: async () => {},
    addAfter: async () => {},
    addAnew: async () => {},
  }
) => {
  return runClusterBridge(
    {
      cluster: 'c1',
      ownerKind: 'DaemonSet',
      watch,
      queue,
      expectations,
      leases,
      nodeIndex,
      holder: 'h1',
      clock: systemClock,
      logger: new FakeLogger(),
    },
    {
      mode: 'watch',
      deadlineMs: Date.now() + 1_500,
      resyncEveryMs: 3_600_000,
      leaseTtlMs: 600,
    }
  );
};

describe('runClusterBridge checkpoints', () => {
  it('stores the node version the saved index covers, not one handled during the save (F10)', async () => {
    // Prepare: the index save is slow; a node event arrives meanwhile.
    let saveStarted!: () => void;
    const saving = new Promise<void>((r) => {
      saveStarted = r;
    });
    let secondHandled!: () => void;
    const handled = new Promise<void>((r) => {
      secondHandled = r;
    });
    const savedIndexes: Map<string, NodeFacts>[] = [];
    class SlowIndex extends MemoryNodeIndexStore {
      override async save(
        cluster: string,
        nodes: ReadonlyMap<string, NodeFacts>,
        holder: string,
        resourceVersion: string
      ): Promise<void> {
        savedIndexes.push(new Map(nodes));
        await super.save(cluster, nodes, holder, resourceVersion);
        if (savedIndexes.length === 1) {
          saveStarted();
          await handled;
        }
      }
    }
    const watch: ClusterWatch = {
      list: async <T extends KubeObject>(resource: string) => ({
        items: (resource === 'nodes' ? [node('0', '10')] : []) as T[],
        resourceVersion: resource === 'nodes' ? '10' : '1',
      }),
      currentVersion: async () => '1',
      watch: <T extends KubeObject>(
        resource: string,
        _rv: string,
        _timeout: number,
        signal: AbortSignal
      ): AsyncIterable<WatchEvent<T>> =>
        (async function* () {
          if (resource === 'nodes' && savedIndexes.length === 0) {
            yield { type: 'MODIFIED', object: node('1', '11') as T };
            await saving;
            yield { type: 'MODIFIED', object: node('2', '12') as T };
            secondHandled();
          }
          await aborted(signal);
        })(),
    };
    const checkpoints: ResourceVersions[] = [];
    const recording = leasesWith((cluster, holder, versions, ttlMs) => {
      checkpoints.push({ ...versions });
      return recording.store.checkpoint(cluster, holder, versions, ttlMs);
    });
    // Act
    await runBridge(watch, recording, new SlowIndex());
    // Assess: the first save held label 1 (rv 11), so rv 11 was stored
    // with it; rv 12 only with the next index, which holds label 2.
    expect(savedIndexes[0]?.get('n1')).toEqual({ labels: { a: '1' } });
    expect(checkpoints[0]?.nodes).toBe('11');
    expect(savedIndexes.at(-1)?.get('n1')).toEqual({ labels: { a: '2' } });
    expect(checkpoints.at(-1)?.nodes).toBe('12');
  });

  it('converges-after-faults: stores the node index only after its versions, so a failed checkpoint leaves the successor the events to replay (campaign seed 330)', async () => {
    // Prepare: a node's label changes; every checkpoint then fails (DynamoDB
    // refusing), as after the event's wake-up went out.
    const saved: Map<string, NodeFacts>[] = [];
    class RecordingIndex extends MemoryNodeIndexStore {
      override async save(
        cluster: string,
        nodes: ReadonlyMap<string, NodeFacts>,
        holder: string,
        resourceVersion: string
      ): Promise<void> {
        saved.push(new Map(nodes));
        await super.save(cluster, nodes, holder, resourceVersion);
      }
    }
    const watch: ClusterWatch = {
      list: async <T extends KubeObject>(resource: string) => ({
        items: (resource === 'nodes' ? [node('0', '10')] : []) as T[],
        resourceVersion: resource === 'nodes' ? '10' : '1',
      }),
      currentVersion: async () => '1',
      watch: <T extends KubeObject>(
        resource: string,
        _rv: string,
        _timeout: number,
        signal: AbortSignal
      ): AsyncIterable<WatchEvent<T>> =>
        (async function* () {
          if (resource === 'nodes') {
            yield { type: 'MODIFIED', object: node('1', '11') as T };
          }
          await aborted(signal);
        })(),
    };
    const failing = leasesWith(async () => {
      throw new Error('DynamoDB InternalServerError');
    });
    // Act
    await runBridge(watch, failing, new RecordingIndex()).catch(
      () => undefined
    );
    // Assess: no index holding label 1 was stored without its version.
    expect(saved.some((index) => index.get('n1')?.labels?.a === '1')).toBe(
      false
    );
  });

  it('converges-after-faults: a run with no stored pod version drops every expectation and queues every DaemonSet, as the creates made meanwhile will never be observed (campaign seed 1016)', async () => {
    // Prepare: a sync expects one create; no run of the cluster ever
    // checkpointed (every one failed), so the create's event is gone.
    const ds = newDaemonSet('a');
    const key = 'c1/default/a';
    const expectations = new MemoryExpectationsStore({ clock: systemClock });
    await expectations.setExpectations(key, 1, 0);
    const queued: (SeenVersion | undefined)[] = [];
    const watch: ClusterWatch = {
      list: async <T extends KubeObject>(resource: string) => ({
        items: (resource === 'daemonSets' ? [ds] : []) as T[],
        resourceVersion: '40',
      }),
      currentVersion: async () => '41',
      watch: <T extends KubeObject>(
        _resource: string,
        _rv: string,
        _timeout: number,
        signal: AbortSignal
      ): AsyncIterable<WatchEvent<T>> => quietUntil<T>(signal),
    };
    const leases = leasesWith((c, h, v, t) =>
      leases.store.checkpoint(c, h, v, t)
    );
    // Act
    await runBridge(watch, leases, new MemoryNodeIndexStore(), expectations, {
      add: async (k, seen) => {
        if (k === key) queued.push(seen);
      },
      addAfter: async () => {},
      addAnew: async () => {},
    });
    // Assess: the sync may act again, reading pods at least that fresh.
    expect(await expectations.satisfiedExpectations(key)).toBe(true);
    expect(queued).toContainEqual({
      collection: 'pods',
      resourceVersion: '41',
    });
  });

  it('converges-after-faults: reads the resume point before dropping the expectations, so a create made after the drop is one the pod watch delivers (campaign seed 327)', async () => {
    // Prepare: a sync sets its expectations just after the drop and its pod
    // lands at version 42, before the bridge would have read the resume
    // point: read after the drop, that point (42) would skip the pod's event
    // and leave the expectations unmet until they expire (5 min).
    const ds = newDaemonSet('a');
    const key = 'c1/default/a';
    let current = 41;
    class SyncRacingDrop extends MemoryExpectationsStore {
      override async deleteExpectations(k: string): Promise<void> {
        await super.deleteExpectations(k);
        if (k !== key || current !== 41) return;
        await this.setExpectations(key, 1, 0);
        current = 42; // the sync's pod is created
      }
    }
    const expectations = new SyncRacingDrop({ clock: systemClock });
    const podWatchFrom: string[] = [];
    const watch: ClusterWatch = {
      list: async <T extends KubeObject>(resource: string) => ({
        items: (resource === 'daemonSets' ? [ds] : []) as T[],
        resourceVersion: '40',
      }),
      currentVersion: async () => String(current),
      watch: <T extends KubeObject>(
        resource: string,
        rv: string,
        _timeout: number,
        signal: AbortSignal
      ): AsyncIterable<WatchEvent<T>> => {
        if (resource === 'pods') podWatchFrom.push(rv);
        return quietUntil<T>(signal);
      },
    };
    const leases = leasesWith((c, h, v, t) =>
      leases.store.checkpoint(c, h, v, t)
    );
    // Act
    await runBridge(watch, leases, new MemoryNodeIndexStore(), expectations);
    // Assess: the pod watch starts before the pod, so its ADDED event lowers
    // the expectations set after the drop.
    expect(await expectations.satisfiedExpectations(key)).toBe(false);
    expect(podWatchFrom[0]).toBe('41');
  });
});
