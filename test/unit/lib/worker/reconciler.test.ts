/**
 * The reconcile side of the queue over fakes of our own ports: coalescing of
 * a batch, the client-go retry rules (processNextWorkItem / handleErr),
 * poison messages, redelivery after a crash.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryClusterHealthStore } from '#lib/adapters/memory/memory-cluster-health-store.js';
import { MemoryClusterSyncSlots } from '#lib/adapters/memory/memory-cluster-sync-slots.js';
import { MemoryOwnershipStore } from '#lib/adapters/memory/memory-ownership-store.js';
import {
  MemoryWorkQueue,
  memoryQueuePorts,
} from '#lib/adapters/memory/memory-work-queue.js';
import { InvalidClusterRecordError } from '#lib/cluster/record.js';
import {
  ApiErrorReason,
  KubeApiError,
  SyncError,
  TerminalError,
  UnsettledExpectationsError,
} from '#lib/errors.js';
import type { ClusterReader } from '#lib/ports/index.js';
import { LocalMetrics } from '#lib/wiring/local-runtime.js';
import type { ClusterSession } from '#lib/worker/cluster-sessions.js';
import { processKey } from '#lib/worker/process-key.js';
import {
  type QueuedKey,
  Reconciler,
  type ReconcilerOptions,
} from '#lib/worker/reconciler.js';
import { MAX_PARALLEL_SYNCS } from '#lib/worker/sync-slots.js';
import { makeNodes, newDaemonSet } from '../../../helpers/builders.js';
import {
  addDaemonSet,
  CLUSTER,
  type Harness,
  keyOf,
  newHarness,
} from '../../../helpers/harness.js';

const record = (
  body: string,
  overrides: Partial<QueuedKey> = {}
): QueuedKey => ({
  messageId: `m-${Math.random().toString(36).slice(2)}`,
  body,
  receiveCount: 1,
  sentAtMs: 0,
  ...overrides,
});

/** DaemonSets `a` (namespace default) and `b` (namespace b) of the harness. */
const twoDaemonSets = (h: Harness) => {
  const a = addDaemonSet(h, newDaemonSet('a'));
  const b = newDaemonSet('b');
  if (b.metadata) b.metadata.namespace = 'b';
  addDaemonSet(h, b);
  return { a, b };
};

/** Makes node lists wait until `release()`, which also ends the hang. */
const hangNodeLists = (h: Harness) => {
  const listNodes = h.cluster.listNodes.bind(h.cluster);
  let resume: (() => void) | undefined;
  h.cluster.listNodes = async () => {
    await new Promise<void>((resolve) => {
      resume = resolve;
    });
    return listNodes();
  };
  return {
    waiting: () => resume !== undefined,
    release: () => {
      h.cluster.listNodes = listNodes;
      resume?.();
    },
  };
};

describe('processKey', () => {
  let queue: MemoryWorkQueue;
  beforeEach(() => {
    queue = new MemoryWorkQueue({ now: () => 0 });
  });
  const deps = (sync: () => Promise<{ requeueAfterMs?: number }>) => ({
    ...memoryQueuePorts(queue),
    logger: newHarness().logger,
    sync,
  });

  it('counts failures and retries after 5 ms · 2^(failures-1)', async () => {
    // Prepare
    const failing = deps(async () => {
      throw new SyncError('boom');
    });
    // Act
    const first = await processKey('c/ns/a', failing);
    const second = await processKey('c/ns/a', failing);
    const third = await processKey('c/ns/a', failing);
    // Assess
    expect(
      [first, second, third].map(
        (o) => o.outcome === 'retrying' && o.retryAfterMs
      )
    ).toEqual([5, 10, 20]);
    queue.shutDown();
  });

  it('forgets the failures after a success and honours requeueAfterMs', async () => {
    // Prepare
    await processKey(
      'c/ns/a',
      deps(async () => {
        throw new SyncError('boom');
      })
    );
    // Act
    const ok = await processKey(
      'c/ns/a',
      deps(async () => ({ requeueAfterMs: 30_000 }))
    );
    // Assess
    expect(ok).toEqual({ outcome: 'synced', requeueAfterMs: 30_000 });
    expect(queue.numRequeues('c/ns/a')).toBe(0);
    queue.shutDown();
  });

  it('requeues a sync’s sub-second boundary at the timer’s second, not at once, and a later one as asked', async () => {
    // Prepare
    const ports = memoryQueuePorts(queue);
    const delays: number[] = [];
    const run = (requeueAfterMs: number) =>
      processKey('c/ns/a', {
        ...ports,
        queue: {
          ...ports.queue,
          addAfter: async (key, delayMs) => {
            delays.push(delayMs);
            await ports.queue.addAfter(key, delayMs);
          },
        },
        logger: newHarness().logger,
        sync: async () => ({ requeueAfterMs }),
      });
    // Act
    const soon = await run(300);
    await run(0);
    await run(2_500);
    // Assess
    expect(delays).toEqual([1_000, 1_000, 2_500]);
    expect(soon).toEqual({ outcome: 'synced', requeueAfterMs: 300 });
    queue.shutDown();
  });

  it('hands the sync the versions its adds saw, and forgets the pods to release once it succeeded', async () => {
    // Prepare
    const ports = memoryQueuePorts(queue);
    const seenVersion = {
      collection: 'pods' as const,
      resourceVersion: '9',
      releasePod: 'agent-x',
    };
    await ports.queue.add('c/ns/a', seenVersion);
    const given: unknown[] = [];
    const run = (fail: boolean) =>
      processKey('c/ns/a', {
        ...ports,
        logger: newHarness().logger,
        sync: async (_key, seen) => {
          given.push(seen);
          if (fail) throw new SyncError('boom');
          return {};
        },
      });
    // Act
    await run(true);
    await run(false);
    await run(false);
    // Assess: kept across the failure, gone after the success
    expect(given).toEqual([
      { pods: '9', releasePods: ['agent-x'] },
      { pods: '9', releasePods: ['agent-x'] },
      { pods: '9' },
    ]);
    queue.shutDown();
  });

  it('drops a key whose sync can never succeed, without a retry', async () => {
    // Act
    const out = await processKey(
      'c/ns/a',
      deps(async () => {
        throw new TerminalError('bad');
      })
    );
    // Assess
    expect(out.outcome).toBe('dropped');
    expect(queue.numRequeues('c/ns/a')).toBe(0);
    expect(queue.length).toBe(0);
    queue.shutDown();
  });

  it('leaves a sync with unsettled expectations to redelivery: throws, counts no failure, requeues nothing (campaign seed 371)', async () => {
    // Act
    const out = processKey(
      'c/ns/a',
      deps(async () => {
        throw new UnsettledExpectationsError('may be set');
      })
    );
    // Assess
    await expect(out).rejects.toBeInstanceOf(UnsettledExpectationsError);
    expect(queue.numRequeues('c/ns/a')).toBe(0);
    expect(queue.length).toBe(0);
    queue.shutDown();
  });
});

describe('Reconciler', () => {
  let h: Harness;
  let queue: MemoryWorkQueue;
  let metrics: LocalMetrics;
  let reconciler: Reconciler;
  let options: ReconcilerOptions;
  let opened: string[];
  let invalidated: string[];
  let health: MemoryClusterHealthStore;
  /** What the cluster's GET /version does (a half-open breaker's probe). */
  let probeAnswer: () => Promise<string | undefined>;

  beforeEach(() => {
    probeAnswer = async () => 'v1.36.3';
    h = newHarness();
    queue = new MemoryWorkQueue({ now: () => h.clock.now() });
    metrics = new LocalMetrics();
    opened = [];
    invalidated = [];
    health = new MemoryClusterHealthStore({ clock: h.clock });
    const session: ClusterSession = {
      record: {
        id: CLUSTER,
        endpoint: 'https://127.0.0.1:1',
        caData: '',
        auth: { type: 'kubeconfig', path: '' },
        ownership: 'apps/v1',
        bridgeMode: 'watch',
      },
      connection: {
        probe: { version: () => probeAnswer() },
      } as unknown as ClusterSession['connection'],
      deps: { ...h.deps },
    };
    options = {
      sessions: {
        get: async (id) => {
          opened.push(id);
          return id === CLUSTER ? session : undefined;
        },
        invalidate: async (id) => {
          invalidated.push(id);
        },
      },
      health,
      ownership: new MemoryOwnershipStore({ clock: h.clock }),
      ...memoryQueuePorts(queue),
      clock: h.clock,
      logger: h.logger,
      metrics,
      probeTimeoutMs: 50,
    };
    reconciler = new Reconciler(options);
    h.cluster.nodes.push(...makeNodes(0, 3));
  });

  const runBatch = async (records: QueuedKey[]) => {
    const handle = reconciler.forBatch(records);
    return Promise.allSettled(records.map((r) => handle(r)));
  };

  it('runs one sync for ten records of the same key', async () => {
    // Prepare
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    const records = Array.from({ length: 10 }, () => record(keyOf(ds)));
    // Act
    const settled = await runBatch(records);
    // Assess
    expect(settled.every((s) => s.status === 'fulfilled')).toBe(true);
    expect(metrics.syncs).toBe(1);
    expect(h.cluster.created).toHaveLength(3);
  });

  it('runs at most four syncs of a batch at once, the rest as slots free (bounded memory)', async () => {
    // Prepare: ten DaemonSets; every sync's node list waits until released.
    const dss = Array.from({ length: 10 }, (_, i) =>
      addDaemonSet(h, newDaemonSet(`ds-${i}`))
    );
    let inFlight = 0;
    let most = 0;
    const listNodes = h.cluster.listNodes.bind(h.cluster);
    h.cluster.listNodes = async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return listNodes();
    };
    // Act
    await runBatch(dss.map((ds) => record(keyOf(ds))));
    // Assess
    expect(most).toBe(MAX_PARALLEL_SYNCS);
    expect(
      new Set(
        h.cluster.created.map((p) => p.metadata?.ownerReferences?.[0]?.name)
      ).size
    ).toBe(10);
  });

  it('starts a key of another cluster before a fourth key of a slow cluster in the same batch', async () => {
    // Prepare: four DaemonSets of the slow cluster, one of cluster "other"
    // (the same fake API server); every node list waits until released.
    const slow = Array.from({ length: 4 }, (_, i) =>
      addDaemonSet(h, newDaemonSet(`a${i}`))
    );
    const session = (await options.sessions.get(CLUSTER)) as ClusterSession;
    const started: string[] = [];
    const hold: (() => void)[] = [];
    const listNodes = h.cluster.listNodes.bind(h.cluster);
    const readerOf = (cluster: string) =>
      new Proxy(h.cluster, {
        get: (target, prop) =>
          prop === 'listNodes'
            ? async () => {
                started.push(cluster);
                await new Promise<void>((r) => hold.push(r));
                return listNodes();
              }
            : Reflect.get(target, prop),
      });
    const fair = new Reconciler({
      ...options,
      sessions: {
        get: async (id) => ({
          ...session,
          record: { ...session.record, id },
          deps: { ...session.deps, reader: readerOf(id) },
        }),
        invalidate: async () => undefined,
      },
    });
    const records = [
      ...slow.map((ds) => record(keyOf(ds))),
      record('other/default/a0'),
    ];
    // Act
    const handle = fair.forBatch(records);
    const all = Promise.all(records.map((r) => handle(r)));
    await vi.waitFor(() => expect(started).toHaveLength(4));
    const firstFour = [...started];
    const release = setInterval(() => hold.shift()?.(), 1);
    await all;
    clearInterval(release);
    // Assess
    expect(firstFour.filter((c) => c === 'other')).toHaveLength(1);
    expect(started).toHaveLength(5);
  });

  it('holds a cluster to its share of reconcilers: a key beyond it waits without a call, and gets a slot once one is free', async () => {
    // Prepare: a share of one; the first key's sync hangs on a read.
    const slots = new MemoryClusterSyncSlots({ clock: h.clock });
    const shared = new Reconciler({
      sessions: {
        get: async () => ({
          record: { id: CLUSTER } as never,
          connection: undefined as never,
          deps: h.deps,
        }),
        invalidate: async () => undefined,
      },
      health,
      ownership: new MemoryOwnershipStore({ clock: h.clock }),
      ...memoryQueuePorts(queue),
      clock: h.clock,
      logger: h.logger,
      metrics,
      slots,
      maxSyncsPerCluster: 1,
    });
    const { a, b } = twoDaemonSets(h);
    const hung = hangNodeLists(h);
    // Act
    const first = shared.forBatch([record(keyOf(a))])(record(keyOf(a)));
    await vi.waitFor(() => expect(h.cluster.reads).toBeGreaterThan(0));
    const readsBefore = h.cluster.reads;
    await shared.forBatch([record(keyOf(b))])(record(keyOf(b)));
    const readsWhileFull = h.cluster.reads - readsBefore;
    hung.release();
    await first;
    const freed = await slots.acquire(CLUSTER, 'next', 1, h.clock.now() + 1);
    // Assess
    expect(readsWhileFull).toBe(0);
    expect(h.logger.lines.map((l) => l.message)).toContain(
      'cluster at its share of reconcilers; key requeued'
    );
    expect(freed).toBe(true);
  });

  it('syncs distinct keys of one batch separately', async () => {
    // Prepare
    const a = addDaemonSet(h, newDaemonSet('a'));
    const b = addDaemonSet(h, newDaemonSet('b'));
    // Act
    await runBatch([record(keyOf(a)), record(keyOf(b)), record(keyOf(a))]);
    // Assess
    expect(metrics.syncs).toBe(2);
    expect(h.cluster.created).toHaveLength(6);
  });

  it('drops malformed keys and unknown clusters with a clear log line, and syncs the rest', async () => {
    // Prepare
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    // Act
    const settled = await runBatch([
      record('not a key'),
      record('elsewhere/default/agent'),
      record(keyOf(ds)),
    ]);
    // Assess
    expect(settled.every((s) => s.status === 'fulfilled')).toBe(true);
    expect(metrics.poison).toBe(2);
    expect(metrics.syncs).toBe(1);
    const drops = h.logger.lines.filter(
      (l) => l.message === 'dropping message'
    );
    expect(drops.map((l) => (l.fields as { error: string }).error)).toEqual([
      expect.stringContaining('malformed DaemonSet key'),
      expect.stringContaining('unknown cluster "elsewhere"'),
    ]);
    expect(opened).toEqual(['elsewhere', CLUSTER]);
  });

  it('acknowledges a key whose cluster record is invalid, counts it, and looks again after a minute', async () => {
    // Prepare: the registry holds a record that breaks its rules.
    const invalid = new Reconciler({
      ...options,
      sessions: {
        get: async (id) => {
          throw new InvalidClusterRecordError(id, [
            { field: 'endpoint', problem: 'must be an https URL' },
          ]);
        },
        invalidate: async () => undefined,
      },
    });
    const r = record(`${CLUSTER}/default/agent`);
    const delays: number[] = [];
    const addAfter = options.queue.addAfter.bind(options.queue);
    options.queue.addAfter = async (key, delayMs) => {
      delays.push(delayMs);
      await addAfter(key, delayMs);
    };
    // Act
    const settled = await Promise.allSettled([invalid.forBatch([r])(r)]);
    // Assess
    expect(settled[0]?.status).toBe('fulfilled');
    expect(metrics.invalidRecords).toEqual([CLUSTER]);
    expect(delays).toEqual([60_000]);
    expect(metrics.syncs).toBe(0);
    expect(h.logger.lines.map((l) => l.message)).toContain(
      'cluster record invalid; key requeued'
    );
  });

  it('drops the expectations of a dead attempt when a message is redelivered', async () => {
    // Prepare: an attempt set expectations for 3 creates, then died.
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    await h.expectations.setExpectations(keyOf(ds), 3, 0);
    // Act
    await runBatch([record(keyOf(ds), { receiveCount: 2 })]);
    // Assess: the sync acted instead of waiting 5 minutes.
    expect(h.cluster.created).toHaveLength(3);
  });

  it('reads the latest state, not a cache, when a message is redelivered (nothing covers the dead attempt’s writes)', async () => {
    // Prepare
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    const asked: (string | undefined)[] = [];
    const listNodes = h.cluster.listNodes.bind(h.cluster);
    h.cluster.listNodes = async (seen?: string) => {
      asked.push(seen);
      return listNodes();
    };
    // Act
    await runBatch([record(keyOf(ds))]);
    await runBatch([record(keyOf(ds), { receiveCount: 2 })]);
    // Assess
    expect(asked).toEqual([undefined, 'latest']);
  });

  it('converges-after-faults: drops a dead attempt’s expectations when its redelivered message is requeued by the open breaker without a call, and the key’s next sync reads the latest state and acts (campaign seed 4212)', async () => {
    // Prepare: an attempt set expectations for 3 creates and died; the
    // cluster breaker is open when its message comes back.
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    await h.expectations.setExpectations(keyOf(ds), 3, 0);
    await health.recordFailure(CLUSTER, '429', () => 1_000, 0);
    const asked: (string | undefined)[] = [];
    const listNodes = h.cluster.listNodes.bind(h.cluster);
    h.cluster.listNodes = async (seen?: string) => {
      asked.push(seen);
      return listNodes();
    };
    // Act: the redelivery is requeued without a call; the requeued message
    // (a first delivery) comes after the breaker's time.
    await runBatch([record(keyOf(ds), { receiveCount: 2 })]);
    const readsWhileOpen = h.cluster.reads;
    h.clock.step(1_001);
    await runBatch([record(keyOf(ds))]);
    // Assess
    expect(readsWhileOpen).toBe(0);
    expect(h.logger.lines.map((l) => l.message)).toContain(
      'cluster backed off; key requeued without a call'
    );
    expect(h.cluster.created).toHaveLength(3);
    expect(asked).toEqual(['latest']);
  });

  it('converges-after-faults: drops the expectations an attempt left when it died on its message’s last receive, and the key’s next sync is a first delivery (campaign seed 120400, warm-up run)', async () => {
    // Prepare: the last receive of a message noted the death before it, then
    // set expectations for 3 creates and died; the message was dead-lettered.
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    await options.ledger.requireLatest(keyOf(ds));
    await h.expectations.setExpectations(keyOf(ds), 3, 0);
    // Act: the key's other message, a first delivery.
    await runBatch([record(keyOf(ds))]);
    // Assess
    expect(h.cluster.created).toHaveLength(3);
  });

  it('reads the latest state on the retry of a redelivered key’s failed sync, and from its cache again after a sync succeeds', async () => {
    // Prepare: the redelivered attempt's sync fails at its first read.
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    const asked: (string | undefined)[] = [];
    const listNodes = h.cluster.listNodes.bind(h.cluster);
    let fail = true;
    h.cluster.listNodes = async (seen?: string) => {
      asked.push(seen);
      if (fail) {
        fail = false;
        throw new SyncError('list nodes: the table answered late');
      }
      return listNodes();
    };
    // Act: the retry and one more sync, as first deliveries.
    await runBatch([record(keyOf(ds), { receiveCount: 2 })]);
    await runBatch([record(keyOf(ds))]);
    await runBatch([record(keyOf(ds))]);
    // Assess
    expect(asked).toEqual(['latest', 'latest', undefined]);
  });

  it('waits for outstanding expectations on a first delivery', async () => {
    // Prepare
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    await h.expectations.setExpectations(keyOf(ds), 3, 0);
    // Act
    await runBatch([record(keyOf(ds))]);
    // Assess
    expect(h.cluster.created).toHaveLength(0);
  });

  it('rejects the record when the queue state cannot be updated (redelivery)', async () => {
    // Prepare
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    const broken = new Reconciler({
      sessions: {
        get: async () => ({
          record: {} as never,
          connection: undefined as never,
          deps: h.deps,
        }),
        invalidate: async () => undefined,
      },
      health: new MemoryClusterHealthStore({ clock: h.clock }),
      ownership: new MemoryOwnershipStore({ clock: h.clock }),
      queue: memoryQueuePorts(queue).queue,
      ledger: {
        beginSync: async () => {
          throw new Error('table throttled');
        },
        recordFailure: async () => 0,
        requireLatest: async () => undefined,
        forget: async () => undefined,
        forgetReleases: async () => undefined,
        seenOf: async () => ({}),
      },
      clock: h.clock,
      logger: h.logger,
      metrics,
    });
    const r = record(keyOf(ds));
    // Act
    const settled = await Promise.allSettled([broken.forBatch([r])(r)]);
    // Assess
    expect(settled[0]?.status).toBe('rejected');
  });
  it('backs a cluster off after a cluster-level failure and requeues its keys without a call', async () => {
    // Prepare: the API server is unreachable.
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    h.cluster.listNodesError = new KubeApiError(
      'list nodes: connect ECONNREFUSED',
      {
        reason: ApiErrorReason.Unreachable,
        statusCode: 0,
      }
    );
    await runBatch([record(keyOf(ds))]);
    const reads = h.cluster.reads;
    // Act: the next message arrives while the breaker is open.
    await runBatch([record(keyOf(ds))]);
    // Assess
    expect((await health.get(CLUSTER))?.failures).toBe(1);
    expect(metrics.unhealthy.get(CLUSTER)).toBe(1);
    expect(h.cluster.reads).toBe(reads);
    expect(h.logger.lines.map((l) => l.message)).toContain(
      'cluster backed off; key requeued without a call'
    );
  });

  it('doubles the breaker once for syncs that failed together, not once per sync (campaign seed 351: a recovered cluster kept waiting 15 s)', async () => {
    // Prepare: both DaemonSets' syncs are admitted before either fails.
    const { a, b } = twoDaemonSets(h);
    const listNodes = h.cluster.listNodes.bind(h.cluster);
    let opened: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      opened = resolve;
    });
    let waiting = 0;
    h.cluster.listNodes = async () => {
      waiting++;
      await gate;
      return listNodes();
    };
    const deadlineMs = h.clock.now() + 45_000;
    const syncs = [a, b].map((ds) =>
      reconciler.forBatch([record(keyOf(ds))], deadlineMs)(record(keyOf(ds)))
    );
    await vi.waitFor(() => expect(waiting).toBe(2));
    // Act: the API server starts refusing; both reads fail.
    h.cluster.listNodesError = new KubeApiError('list nodes: 429', {
      reason: ApiErrorReason.TooManyRequests,
      statusCode: 429,
    });
    opened();
    await Promise.all(syncs);
    // Assess: one failure counted, the breaker open for 1 s.
    const stored = await health.get(CLUSTER);
    expect(stored?.failures).toBe(1);
    expect(stored?.openUntilMs).toBe(h.clock.now() + 1_000);
  });

  it('reads pods at least as fresh as its own creates on the key’s next sync, even with its expectations dropped meanwhile (a pods 410 while they landed)', async () => {
    // Prepare: a sync creates 3 pods; then the bridge, after a pods 410,
    // drops the key's expectations before it saw the creates.
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    await runBatch([record(keyOf(ds))]);
    await h.expectations.deleteExpectations(keyOf(ds));
    const asked: (string | undefined)[] = [];
    const reader: ClusterReader = h.cluster;
    const listPods = reader.listPods.bind(reader);
    reader.listPods = async (ns, owner, seen) => {
      asked.push(seen);
      return listPods(ns, owner);
    };
    // Act
    await runBatch([record(keyOf(ds))]);
    // Assess: a cache would have had to show the newest created pod.
    expect(asked).toEqual([String(h.cluster.lastCreatedVersion)]);
    expect(h.cluster.lastCreatedVersion).toBe(3);
    expect(h.cluster.created).toHaveLength(3);
  });

  it('only writes status while the last burst is unobserved, without a wait (upstream)', async () => {
    // Prepare
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    await h.expectations.setExpectations(keyOf(ds), 1, 0);
    // Act
    await runBatch([record(keyOf(ds))]);
    // Assess
    expect(h.cluster.created).toEqual([]);
    expect(h.cluster.statusUpdates).toHaveLength(1);
  });

  it('requeues a key of a backed-off cluster at least a second later, never in a spin (campaign seed 316: ~40 requeues a second)', async () => {
    // Prepare: the breaker opens for another 100 ms only.
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    await health.recordFailure(CLUSTER, 'timed out', () => 1_000, 0);
    h.clock.step(900);
    // Act
    await runBatch([record(keyOf(ds))]);
    // Assess
    const waits = h.logger.lines.filter(
      (l) => l.message === 'cluster backed off; key requeued without a call'
    );
    expect(waits).toHaveLength(1);
    expect(waits[0]?.fields).toMatchObject({ retryAfterMs: 1_000 });
  });

  it('keeps the breaker closed when a write fails for its object alone (an admission webhook’s 500, F7)', async () => {
    // Prepare: a webhook refuses every pod create of one DaemonSet.
    const refused = addDaemonSet(h, newDaemonSet('refused'));
    h.cluster.createError = new KubeApiError(
      'create pod default/refused-: 500 InternalError failed calling webhook "policy.example.com"',
      { reason: ApiErrorReason.ServerError, statusCode: 500, write: true }
    );
    await runBatch([record(keyOf(refused))]);
    h.cluster.createError = undefined;
    const other = newDaemonSet('other');
    if (other.metadata) other.metadata.namespace = 'b';
    addDaemonSet(h, other);
    // Act: another DaemonSet of the cluster syncs right after.
    await runBatch([record(keyOf(other))]);
    // Assess
    expect(await health.get(CLUSTER)).toBeUndefined();
    expect(
      h.cluster.created.filter((p) => p.metadata?.namespace === 'b')
    ).toHaveLength(3);
  });

  it('one-daemon-pod-per-node: after a create whose answer was lost, the key reads the latest state until a sync succeeds (campaign seed 80707)', async () => {
    // Prepare: the first create's connection resets after the request.
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    h.cluster.createError = new KubeApiError('create pod: socket hang up', {
      reason: ApiErrorReason.Unreachable,
      statusCode: 0,
      write: true,
    });
    // Act
    await runBatch([record(keyOf(ds))]);
    const next = await options.ledger.beginSync(keyOf(ds));
    // Assess
    expect(next.readLatest).toBe(true);
  });

  it('converges-after-faults: when lowering a failed create’s expectation fails, the key’s next sync drops the expectations and creates (campaign seed 230612)', async () => {
    // Prepare: a webhook refuses the first create, and the store throttles
    // the lowering of its expectation.
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    h.cluster.createError = new KubeApiError(
      'create pod default/agent-: 500 InternalError failed calling webhook "policy.example.com"',
      { reason: ApiErrorReason.ServerError, statusCode: 500, write: true }
    );
    const lower = h.expectations.lowerExpectations.bind(h.expectations);
    let throttled = 0;
    h.expectations.lowerExpectations = async (key, adds, dels) => {
      if (throttled === 0) {
        throttled++;
        throw new Error('ThrottlingException: injected');
      }
      return lower(key, adds, dels);
    };
    await runBatch([record(keyOf(ds))]);
    h.cluster.createError = undefined;
    // Act: the retry.
    await runBatch([record(keyOf(ds))]);
    // Assess
    expect(throttled).toBe(1);
    expect(h.cluster.created).toHaveLength(3);
  });

  it('opens the breaker when a read fails with 5xx (the server, not an object)', async () => {
    // Prepare
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    h.cluster.listNodesError = new KubeApiError('list nodes: 503', {
      reason: ApiErrorReason.ServerError,
      statusCode: 503,
    });
    // Act
    await runBatch([record(keyOf(ds))]);
    // Assess
    expect((await health.get(CLUSTER))?.failures).toBe(1);
  });

  it('stops a sync that passes its deadline before its next call, and requeues the key (F2)', async () => {
    // Prepare: listing nodes takes the batch past its deadline.
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    const deadlineMs = h.clock.now() + 50_000;
    const listNodes = h.cluster.listNodes.bind(h.cluster);
    h.cluster.listNodes = async () => {
      h.clock.step(55_000);
      return listNodes();
    };
    // Act
    const handle = reconciler.forBatch([record(keyOf(ds))], deadlineMs);
    const settled = await Promise.allSettled([handle(record(keyOf(ds)))]);
    // Assess: acknowledged, nothing created, retried with the key's backoff.
    expect(settled[0]?.status).toBe('fulfilled');
    expect(h.cluster.created).toEqual([]);
    expect(queue.numRequeues(keyOf(ds))).toBe(1);
    expect(await health.get(CLUSTER)).toBeUndefined();
    expect(
      h.logger.lines.some((l) =>
        JSON.stringify(l.fields).includes('sync deadline passed before')
      )
    ).toBe(true);
  });

  it('runs each sync under a signal that aborts at the batch deadline, and bounds its Event flush by it', async () => {
    // Prepare
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    const session = (await options.sessions.get(CLUSTER)) as ClusterSession;
    const flushed: (AbortSignal | undefined)[] = [];
    const events = {
      record: async () => undefined,
      flush: async (signal?: AbortSignal) => {
        flushed.push(signal);
      },
    };
    const scoped: AbortSignal[] = [];
    const bounded = new Reconciler({
      ...options,
      sessions: {
        get: async () => ({ ...session, deps: { ...session.deps, events } }),
        invalidate: async () => undefined,
      },
      requestScope: (signal, work) => {
        scoped.push(signal);
        return work();
      },
    });
    const r = record(keyOf(ds));
    // Act
    await bounded.forBatch([r], h.clock.now() + 30_000)(r);
    // Assess: the signal itself is deadlineSignal's (sync-deadline.test.ts).
    expect(h.cluster.created).toHaveLength(3);
    expect(scoped).toHaveLength(1);
    expect(scoped[0]?.aborted).toBe(false);
    expect(flushed).toEqual([scoped[0]]);
  });

  it('requeues a key whose batch slot comes too close to the deadline, without a sync or a failure counted', async () => {
    // Prepare: a 30-s batch; 3 s are left when the key's turn comes.
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    const r = record(keyOf(ds));
    const reads = h.cluster.reads;
    const late = new Reconciler({
      ...options,
      sessions: {
        get: async (cluster) => {
          h.clock.step(27_000);
          return options.sessions.get(cluster);
        },
        invalidate: (cluster) => options.sessions.invalidate(cluster),
      },
    });
    // Act
    await late.forBatch([r], h.clock.now() + 30_000)(r);
    // Assess
    expect(h.cluster.reads).toBe(reads);
    expect(metrics.syncs).toBe(0);
    expect((await options.ledger.beginSync(keyOf(ds))).failures).toBe(0);
    expect(queue.numRequeues(keyOf(ds))).toBe(0);
    expect(
      h.logger.lines.find(
        (l) =>
          l.message ===
          'too little time left before the sync deadline; key requeued'
      )?.fields
    ).toMatchObject({ leftMs: 3_000, retryAfterMs: 1_000 });
  });

  it('syncs a key of a batch shorter than a sync’s usual minimum, while half its time is left (a short function timeout)', async () => {
    // Prepare: the whole batch has 3.75 s, as under a 5-s function timeout.
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    const r = record(keyOf(ds));
    // Act
    await reconciler.forBatch([r], h.clock.now() + 3_750)(r);
    // Assess
    expect(metrics.syncs).toBe(1);
    expect(h.cluster.created).toHaveLength(3);
  });

  it('runs a sync without a deadline to the end', async () => {
    // Prepare
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    const listNodes = h.cluster.listNodes.bind(h.cluster);
    h.cluster.listNodes = async () => {
      h.clock.step(55_000);
      return listNodes();
    };
    // Act
    await runBatch([record(keyOf(ds))]);
    // Assess
    expect(h.cluster.created).toHaveLength(3);
  });

  it('closes the breaker after the next successful sync', async () => {
    // Prepare
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    await health.recordFailure(CLUSTER, 'boom', () => 1_000, 0);
    h.clock.step(1_001);
    // Act
    await runBatch([record(keyOf(ds))]);
    // Assess
    expect(await health.get(CLUSTER)).toBeUndefined();
    expect(h.cluster.created).toHaveLength(3);
  });

  it('lets one sync probe a cluster whose breaker time ran out and requeues the others without a call while it runs (half-open)', async () => {
    // Prepare: a failure some time ago; the probe's sync hangs on a read.
    const { a, b } = twoDaemonSets(h);
    await health.recordFailure(CLUSTER, 'timed out', () => 1_000, 0);
    h.clock.step(1_001);
    const hung = hangNodeLists(h);
    const deadlineMs = h.clock.now() + 45_000;
    // Act: a's sync probes; b's arrives while it hangs.
    const probing = reconciler.forBatch(
      [record(keyOf(a))],
      deadlineMs
    )(record(keyOf(a)));
    await vi.waitFor(() => expect(hung.waiting()).toBe(true));
    await reconciler.forBatch([record(keyOf(b))], deadlineMs)(record(keyOf(b)));
    const readsWhileProbing = h.cluster.reads;
    hung.release();
    await probing;
    // Assess: b made no call and waits; the probe's success closed the breaker.
    const waits = h.logger.lines.filter(
      (l) => l.message === 'cluster backed off; key requeued without a call'
    );
    expect(waits).toHaveLength(1);
    // It looks again within 5 s, not at the probe's 45-s deadline.
    expect(waits[0]?.fields).toMatchObject({ retryAfterMs: 5_000 });
    expect(
      h.cluster.created.filter((p) => p.metadata?.namespace === 'b')
    ).toEqual([]);
    expect(readsWhileProbing).toBeLessThanOrEqual(1);
    expect(await health.get(CLUSTER)).toBeUndefined();
  });

  it('no-pod-on-ineligible-node: frees a half-open probe’s claim when its sync fails for a reason that is not the cluster’s, so the cluster’s next key probes at once (campaign seed 120808)', async () => {
    // Prepare: the backoff ran out; a webhook refuses the probe's creates.
    const { a, b } = twoDaemonSets(h);
    await health.recordFailure(CLUSTER, 'timed out', () => 1_000, 0);
    h.clock.step(1_001);
    h.cluster.createError = new KubeApiError(
      'create pod default/a-: 500 InternalError failed calling webhook "policy.example.com"',
      { reason: ApiErrorReason.ServerError, statusCode: 500, write: true }
    );
    const deadlineMs = h.clock.now() + 45_000;
    await reconciler.forBatch([record(keyOf(a))], deadlineMs)(record(keyOf(a)));
    h.cluster.createError = undefined;
    // Act: b comes long before a's deadline.
    await reconciler.forBatch([record(keyOf(b))], deadlineMs)(record(keyOf(b)));
    // Assess: b probed and synced; its success closed the breaker.
    expect(h.logger.lines.map((l) => l.message)).not.toContain(
      'cluster backed off; key requeued without a call'
    );
    expect(
      h.cluster.created.filter((p) => p.metadata?.namespace === 'b')
    ).toHaveLength(3);
    expect(await health.get(CLUSTER)).toBeUndefined();
  });

  it('frees a half-open probe’s claim when the probing key then finds its cluster’s share of reconcilers taken, so the next key probes at once', async () => {
    // Prepare: the backoff ran out; another reconciler holds the share.
    const { a, b } = twoDaemonSets(h);
    await health.recordFailure(CLUSTER, 'timed out', () => 1_000, 0);
    h.clock.step(1_001);
    const slots = new MemoryClusterSyncSlots({ clock: h.clock });
    const deadlineMs = h.clock.now() + 45_000;
    await slots.acquire(CLUSTER, 'elsewhere', 1, deadlineMs);
    const shared = new Reconciler({ ...options, slots, maxSyncsPerCluster: 1 });
    await shared.forBatch([record(keyOf(a))], deadlineMs)(record(keyOf(a)));
    await slots.release(CLUSTER, 'elsewhere');
    // Act: b comes long before a's deadline.
    await shared.forBatch([record(keyOf(b))], deadlineMs)(record(keyOf(b)));
    // Assess: b probed and synced; its success closed the breaker.
    expect(h.logger.lines.map((l) => l.message)).not.toContain(
      'cluster backed off; key requeued without a call'
    );
    expect(
      h.cluster.created.filter((p) => p.metadata?.namespace === 'b')
    ).toHaveLength(3);
    expect(await health.get(CLUSTER)).toBeUndefined();
  });

  it('sends a half-open cluster that does not answer its probe in time back to backoff, without a sync', async () => {
    // Prepare: the backoff ran out; the API server now accepts and hangs.
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    await health.recordFailure(CLUSTER, 'timed out', () => 1_000, 0);
    h.clock.step(1_001);
    probeAnswer = () => new Promise(() => undefined);
    const reads = h.cluster.reads;
    // Act
    await runBatch([record(keyOf(ds))]);
    // Assess
    expect(h.cluster.reads).toBe(reads);
    expect((await health.get(CLUSTER))?.failures).toBe(2);
    expect(h.logger.lines.map((l) => l.message)).toEqual(
      expect.arrayContaining([
        'cluster unhealthy; backing it off',
        'cluster backed off; key requeued without a call',
      ])
    );
  });

  it('reconnects after the cluster rejects the credentials', async () => {
    // Prepare
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    h.cluster.listNodesError = new KubeApiError('list nodes: Unauthorized', {
      reason: ApiErrorReason.Unauthorized,
      statusCode: 401,
    });
    // Act
    await runBatch([record(keyOf(ds))]);
    // Assess
    expect(invalidated).toEqual([CLUSTER]);
    expect((await health.get(CLUSTER))?.lastError).toContain('Unauthorized');
  });
});
