/**
 * A bridge run whose predecessor stored its resourceVersions but failed to
 * store the node index that goes with them starts from an index behind
 * those versions: it must not trust it, or a node change that reverts one
 * the predecessor handled (L0 → L1 → L0) wakes nobody.
 */
import { describe, expect, it } from 'vitest';
import { MemoryBridgeLeaseStore } from '#lib/adapters/memory/memory-bridge-lease-store.js';
import { MemoryExpectationsStore } from '#lib/adapters/memory/memory-expectations-store.js';
import { MemoryNodeIndexStore } from '#lib/adapters/memory/memory-node-index-store.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { runClusterBridge } from '#lib/bridge/cluster-bridge.js';
import type {
  ClusterWatch,
  SeenVersion,
  WatchEvent,
  WorkQueue,
} from '#lib/ports/index.js';
import type { NodeFacts } from '#lib/reconcile/event-keys/resumed.js';
import type { DaemonSet, KubeObject, Node } from '#lib/reconcile/k8s/types.js';
import { newDaemonSet } from '../../../helpers/builders.js';
import { FakeLogger } from '../../../helpers/fakes/fake-logger.js';

const KEY = 'c1/default/d';

const node = (label: string, rv: string): Node => ({
  metadata: { name: 'n1', labels: { a: label }, resourceVersion: rv },
});

/** DaemonSet d runs on nodes labelled a=0. */
const daemonSet = (): DaemonSet => {
  const ds = newDaemonSet('d');
  if (ds.spec?.template.spec) ds.spec.template.spec.nodeSelector = { a: '0' };
  return ds;
};

/** Resolves once `signal` aborts. */
const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });

/** The index store whose `failAt`-th save throws, as a cancelled transaction. */
class FailingIndex extends MemoryNodeIndexStore {
  failAt = 0;
  override async save(
    cluster: string,
    nodes: ReadonlyMap<string, NodeFacts>,
    holder: string,
    resourceVersion: string
  ): Promise<void> {
    if (this.saves + 1 === this.failAt) {
      this.saves++;
      throw new Error('TransactionCanceledException: TransactionConflict');
    }
    await super.save(cluster, nodes, holder, resourceVersion);
  }
}

/** A watch over `nodes` (listed) and `events` (streamed once the gate opens). */
const watchOf = (
  listed: Node,
  events: Node[],
  gate: () => boolean = () => true
): ClusterWatch => ({
  list: async <T extends KubeObject>(resource: string) => ({
    items: (resource === 'nodes'
      ? [listed]
      : resource === 'daemonSets'
        ? [daemonSet()]
        : []) as T[],
    resourceVersion:
      resource === 'nodes' ? (listed.metadata?.resourceVersion ?? '') : '1',
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
        while (!gate() && !signal.aborted) {
          await new Promise((r) => setTimeout(r, 20));
        }
        for (const n of events) yield { type: 'MODIFIED', object: n as T };
      }
      await aborted(signal);
    })(),
});

/** Runs cluster c1's bridge for 1.5 s; returns the keys it queued. */
const runBridge = async (
  watch: ClusterWatch,
  leases: MemoryBridgeLeaseStore,
  nodeIndex: MemoryNodeIndexStore
) => {
  const queued: { key: string; seen?: SeenVersion }[] = [];
  const queue: WorkQueue = {
    add: async (key, seen) => {
      queued.push({ key, ...(seen ? { seen } : {}) });
    },
    addAfter: async () => {},
    addAnew: async () => {},
  };
  const run = runClusterBridge(
    {
      cluster: 'c1',
      ownerKind: 'DaemonSet',
      watch,
      queue,
      expectations: new MemoryExpectationsStore({ clock: systemClock }),
      leases,
      nodeIndex,
      holder: `h${Math.random()}`,
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
  await run.catch(() => undefined);
  return queued;
};

/**
 * A first run: n1 is listed with a=0 (rv 10) and saved; then a=1 (rv 11)
 * is handled, its versions land and the index save fails.
 */
const runWhoseLastSaveFails = async () => {
  const leases = new MemoryBridgeLeaseStore({ clock: systemClock });
  const index = new FailingIndex();
  index.failAt = 2;
  await runBridge(
    watchOf(node('0', '10'), [node('1', '11')], () => index.saves >= 1),
    leases,
    index
  );
  index.failAt = 0;
  return { leases, index };
};

describe('runClusterBridge after an index save that failed', () => {
  it('wakes the DaemonSet when a node change reverts one whose index save failed', async () => {
    // Prepare
    const { leases, index } = await runWhoseLastSaveFails();
    expect(index.saves).toBe(2);
    // Act: the successor lists n1 at a=1, then sees a=1 → a=0 (rv 12).
    const queued = await runBridge(
      watchOf(node('1', '11'), [node('0', '12')]),
      leases,
      index
    );
    // Assess: the revert wakes d.
    expect(queued).toContainEqual({
      key: KEY,
      seen: { collection: 'nodes', resourceVersion: '12' },
    });
  });

  it('queues the DaemonSet when the revert happened before the successor started', async () => {
    // Prepare
    const { leases, index } = await runWhoseLastSaveFails();
    // Act: n1 is back at a=0 (rv 12) when the successor starts.
    const queued = await runBridge(watchOf(node('0', '12'), []), leases, index);
    // Assess: the index cannot tell a=0 from a=0; d is queued regardless.
    expect(queued.map((q) => q.key)).toContain(KEY);
  });

  it('trusts an index saved with its versions and queues nothing', async () => {
    // Prepare: a run whose saves all land.
    const leases = new MemoryBridgeLeaseStore({ clock: systemClock });
    const index = new FailingIndex();
    await runBridge(watchOf(node('0', '10'), [node('1', '11')]), leases, index);
    // Act
    const queued = await runBridge(watchOf(node('1', '11'), []), leases, index);
    // Assess
    expect(queued).toEqual([]);
  });
});
