/**
 * A bridge run on a cluster holding a DaemonSet whose template cannot be
 * judged: starting without a usable node index, it relists nodes, wakes
 * that DaemonSet and the others the nodes concern, and runs to its end.
 */
import { describe, expect, it } from 'vitest';
import { MemoryBridgeLeaseStore } from '#lib/adapters/memory/memory-bridge-lease-store.js';
import { MemoryExpectationsStore } from '#lib/adapters/memory/memory-expectations-store.js';
import { MemoryNodeIndexStore } from '#lib/adapters/memory/memory-node-index-store.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { runClusterBridge } from '#lib/bridge/cluster-bridge.js';
import type { ClusterWatch, WatchEvent } from '#lib/ports/index.js';
import type { DaemonSet, KubeObject, Node } from '#lib/reconcile/k8s/types.js';
import { newDaemonSet } from '../../../helpers/builders.js';
import { FakeLogger } from '../../../helpers/fakes/fake-logger.js';

const poison: DaemonSet = newDaemonSet('poison');
Object.assign(poison.spec?.template.spec ?? {}, { tolerations: { a: 1 } });
const good = newDaemonSet('good');
Object.assign(good.spec?.template.spec ?? {}, {
  tolerations: [{ operator: 'Exists' }],
});
const node: Node = {
  metadata: { name: 'n1', resourceVersion: '10' },
  spec: { taints: [{ key: 'dedicated', effect: 'NoSchedule' }] },
};

/** A cluster of `poison`, `good` and a tainted node; watches bring nothing. */
const watch: ClusterWatch = {
  list: async <T extends KubeObject>(resource: string) => ({
    items: (resource === 'nodes'
      ? [node]
      : resource === 'daemonSets'
        ? [poison, good]
        : []) as T[],
    resourceVersion: '10',
  }),
  currentVersion: async () => '10',
  watch: <T extends KubeObject>(
    _resource: string,
    _rv: string,
    _timeout: number,
    signal: AbortSignal
  ): AsyncIterable<WatchEvent<T>> =>
    (async function* () {
      await new Promise((r) => signal.addEventListener('abort', r));
    })(),
};

describe('runClusterBridge beside a DaemonSet it cannot judge', () => {
  it('starts without a node index, wakes it and the others, and runs to its end', async () => {
    // Prepare: a former run stored versions, but no index survived.
    const leases = new MemoryBridgeLeaseStore({ clock: systemClock });
    await leases.acquire('c1', 'h0', 600);
    const versions = { daemonSets: '1', pods: '1', nodes: '1', revisions: '1' };
    await leases.checkpoint('c1', 'h0', versions, 600);
    await leases.release('c1', 'h0');
    const queued: string[] = [];
    const queue = {
      add: async (key: string) => void queued.push(key),
      addAfter: async () => {},
      addAnew: async () => {},
    };
    // Act
    const report = await runClusterBridge(
      {
        cluster: 'c1',
        ownerKind: 'DaemonSet',
        watch,
        queue,
        expectations: new MemoryExpectationsStore({ clock: systemClock }),
        leases,
        nodeIndex: new MemoryNodeIndexStore(),
        holder: 'h1',
        clock: systemClock,
        logger: new FakeLogger(),
      },
      {
        mode: 'economy',
        deadlineMs: Date.now() + 3_000,
        resyncEveryMs: 3_600_000,
        leaseTtlMs: 600,
      }
    );
    // Assess
    expect(report.outcome).toBe('done');
    expect(queued).toContain('c1/default/poison');
    expect(queued).toContain('c1/default/good');
  });
});
