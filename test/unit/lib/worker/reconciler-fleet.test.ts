/**
 * Fleet rollout keys on the reconcile side: `fleet:<policy>` runs the fleet
 * sync with the same queue protocol as a DaemonSet key and counts its
 * phase; a member DaemonSet's sync reads its hold and reports through the
 * same store; without fleet rollouts configured the key is dropped loudly.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryClusterHealthStore } from '#lib/adapters/memory/memory-cluster-health-store.js';
import { MemoryFleetRolloutStore } from '#lib/adapters/memory/memory-fleet-rollout-store.js';
import { MemoryOwnershipStore } from '#lib/adapters/memory/memory-ownership-store.js';
import {
  MemoryWorkQueue,
  memoryQueuePorts,
} from '#lib/adapters/memory/memory-work-queue.js';
import { ApiErrorReason, KubeApiError } from '#lib/errors.js';
import type { ClusterRecord } from '#lib/ports/index.js';
import { LocalMetrics } from '#lib/wiring/local-runtime.js';
import type { ClusterSession } from '#lib/worker/cluster-sessions.js';
import {
  type QueuedKey,
  Reconciler,
  type ReconcilerOptions,
} from '#lib/worker/reconciler.js';
import { makeNodes, newDaemonSet } from '../../../helpers/builders.js';
import { MemoryClusterRegistry } from '../../../helpers/fakes/memory-cluster-registry.js';
import { testFleetPolicy } from '../../../helpers/fleet-policies.js';
import {
  addDaemonSet,
  CLUSTER,
  type Harness,
  keyOf,
  newHarness,
} from '../../../helpers/harness.js';

const CLUSTER_RECORD: ClusterRecord = {
  id: CLUSTER,
  endpoint: '',
  caData: '',
  auth: { type: 'kubeconfig', path: '/k/test' },
  ownership: 'apps/v1',
  bridgeMode: 'watch',
};

const record = (body: string): QueuedKey => ({
  messageId: `m-${Math.random().toString(36).slice(2)}`,
  body,
  receiveCount: 1,
  sentAtMs: 0,
});

describe('Reconciler with fleet rollout keys', () => {
  let h: Harness;
  let queue: MemoryWorkQueue;
  let metrics: LocalMetrics;
  let store: MemoryFleetRolloutStore;
  let options: ReconcilerOptions;

  const run = async (reconciler: Reconciler, key: string) => {
    const r = record(key);
    await reconciler.forBatch([r])(r);
  };

  beforeEach(async () => {
    h = newHarness();
    h.cluster.nodes.push(...makeNodes(0, 3));
    queue = new MemoryWorkQueue({ now: () => h.clock.now() });
    metrics = new LocalMetrics();
    store = new MemoryFleetRolloutStore();
    const session: ClusterSession = {
      record: CLUSTER_RECORD,
      connection: {
        probe: { version: async () => 'v1.36.3' },
      } as unknown as ClusterSession['connection'],
      deps: { ...h.deps },
    };
    options = {
      sessions: {
        get: async (id) => (id === CLUSTER ? session : undefined),
        invalidate: async () => undefined,
      },
      health: new MemoryClusterHealthStore({ clock: h.clock }),
      ownership: new MemoryOwnershipStore({ clock: h.clock }),
      ...memoryQueuePorts(queue),
      clock: h.clock,
      logger: h.logger,
      metrics,
      fleet: { store, registry: new MemoryClusterRegistry([CLUSTER_RECORD]) },
    };
    await store.applyPolicy(
      testFleetPolicy('agent', {
        target: { namespace: 'default', name: 'agent' },
        clusters: { ids: [CLUSTER] },
        waves: [{ name: 'all', clusters: { ids: [CLUSTER] } }],
      }),
      'source',
      h.clock.now()
    );
  });

  it('runs the fleet sync for a fleet key, wakes the member and counts the phase', async () => {
    // Prepare
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    const reconciler = new Reconciler(options);
    // Act
    await run(reconciler, 'fleet:agent');
    // Assess
    expect(await store.getMember(keyOf(ds))).toMatchObject({ policy: 'agent' });
    expect(await queue.get()).toBe(keyOf(ds));
    expect(metrics.fleetRollouts.get('agent')).toBe('Idle');
  });

  it('lets a member DaemonSet’s sync report to its fleet rollout, which pins it', async () => {
    // Prepare
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    const reconciler = new Reconciler(options);
    await run(reconciler, 'fleet:agent');
    // Act
    await run(reconciler, keyOf(ds));
    await run(reconciler, 'fleet:agent');
    // Assess
    const member = await store.getMember(keyOf(ds));
    expect(member?.observation).toMatchObject({ reachable: true, desired: 3 });
    expect((await store.get('agent'))?.state.stable[CLUSTER]).toBe(
      member?.observation?.revision
    );
  });

  it('tells the fleet rollout at once when a member’s cluster gives no answer', async () => {
    // Prepare
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    const reconciler = new Reconciler(options);
    await run(reconciler, 'fleet:agent');
    await run(reconciler, keyOf(ds));
    while (queue.length > 0) queue.done((await queue.get()) as string);
    h.cluster.getDaemonSet = async () => {
      throw new KubeApiError('connect ECONNREFUSED', {
        reason: ApiErrorReason.Unreachable,
        statusCode: 0,
      });
    };
    // Act
    await run(reconciler, keyOf(ds));
    // Assess
    const member = await store.getMember(keyOf(ds));
    expect(member?.observation?.reachable).toBe(false);
    const queued: (string | undefined)[] = [];
    while (queue.length > 0) queued.push(await queue.get());
    expect(queued).toContain('fleet:agent');
  });

  it('drops a fleet key with an error when fleet rollouts are not configured', async () => {
    // Prepare
    const { fleet: _, ...without } = options;
    const reconciler = new Reconciler(without);
    // Act
    await run(reconciler, 'fleet:agent');
    // Assess
    expect((await store.get('agent'))?.state.stable).toEqual({});
    expect(h.logger.lines.map((l) => l.message)).toContain(
      'fleet rollout key, but fleet rollouts are not configured; dropped'
    );
    expect(metrics.fleetRollouts.size).toBe(0);
  });
});
