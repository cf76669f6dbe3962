/**
 * The take-over part of BridgeLeaseStore, one contract for the DynamoDB
 * store (on DynamoDB Local) and the in-memory one: the planned end of a run,
 * the cluster's size and its last checkpoint's time as the dispatcher reads
 * them, and take-over claims — one launch per run however many ticks race,
 * a retried claim granted to the same tick (a lost response), stale claims
 * replaced, the taker's acquire ending the claim.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoBridgeLeaseStore } from '#lib/adapters/dynamodb/dynamo-bridge-lease-store.js';
import {
  BOOKMARK_RETENTION_MS,
  MemoryBridgeLeaseStore,
} from '#lib/adapters/memory/memory-bridge-lease-store.js';
import type { BridgeLeaseStore } from '#lib/ports/index.js';
import { createTestTable, type TestTable } from '#test/helpers/dynamo-table.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';
import { loseResponsesAfterCommit } from '#test/helpers/lose-response.js';

const TTL_MS = 30_000;
const STALE_MS = 200_000;
let table: TestTable;
let clusterCount = 0;
const newCluster = (): string => `take-over-${++clusterCount}`;

beforeAll(async () => {
  table = await createTestTable(inject('dynamodbEndpoint'));
});
afterAll(() => {
  table.client.destroy();
});

const stores: [string, (clock: FakeClock) => BridgeLeaseStore][] = [
  [
    'DynamoBridgeLeaseStore',
    (clock) => new DynamoBridgeLeaseStore({ ...table, clock }),
  ],
  ['MemoryBridgeLeaseStore', (clock) => new MemoryBridgeLeaseStore({ clock })],
];

describe.each(stores)('%s take-over', (_name, create) => {
  const setUp = () => {
    const clock = new FakeClock(Date.now());
    return { clock, store: create(clock) };
  };

  it('shows each run’s planned end, the cluster’s size and its last checkpoint, and nothing for a cluster never leased', async () => {
    // Prepare
    const { store, clock } = setUp();
    const [a, never] = [newCluster(), newCluster()];
    const runUntil = clock.now() + 600_000;
    await store.acquire(a, 'h1', TTL_MS, runUntil);
    await store.checkpoint(a, 'h1', { pods: '3' }, TTL_MS, { nodes: 1_234 });
    // Act
    const views = await store.peek([a, never]);
    // Assess
    expect(views.get(a)).toEqual({
      holder: 'h1',
      leaseUntilMs: clock.now() + TTL_MS,
      runUntilMs: runUntil,
      size: { nodes: 1_234 },
      checkpointedAtMs: clock.now(),
    });
    expect(views.has(never)).toBe(false);
  });

  it('keeps the last checkpoint’s time through a release and the next run’s acquire', async () => {
    // Prepare
    const { store, clock } = setUp();
    const cluster = newCluster();
    await store.acquire(cluster, 'h1', TTL_MS);
    await store.checkpoint(cluster, 'h1', { pods: '3' }, TTL_MS);
    const checkpointedAt = clock.now();
    await store.release(cluster, 'h1');
    clock.step(5_000);
    // Act
    await store.acquire(cluster, 'h2', TTL_MS);
    const view = (await store.peek([cluster])).get(cluster);
    // Assess
    expect(view?.checkpointedAtMs).toBe(checkpointedAt);
  });

  it('grants one claim per take-over however many ticks race for it', async () => {
    // Prepare
    const { store } = setUp();
    const cluster = newCluster();
    await store.acquire(cluster, 'h1', TTL_MS, Date.now() + 60_000);
    // Act
    const claims = await Promise.all(
      ['t1', 't2', 't3'].map((tick) =>
        store.claimTakeOver(cluster, 'h1', tick, STALE_MS)
      )
    );
    // Assess
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  it('grants a claim to the tick that holds it again (a retried call), not to another', async () => {
    // Prepare
    const { store } = setUp();
    const cluster = newCluster();
    // Act
    const first = await store.claimTakeOver(cluster, undefined, 't1', STALE_MS);
    const retried = await store.claimTakeOver(
      cluster,
      undefined,
      't1',
      STALE_MS
    );
    const other = await store.claimTakeOver(cluster, undefined, 't2', STALE_MS);
    // Assess
    expect([first, retried, other]).toEqual([true, true, false]);
  });

  it('replaces a stale claim, and the taker’s acquire ends the claim', async () => {
    // Prepare
    const { store, clock } = setUp();
    const cluster = newCluster();
    await store.claimTakeOver(cluster, undefined, 't1', STALE_MS);
    clock.step(STALE_MS + 1);
    // Act
    const afterStale = await store.claimTakeOver(
      cluster,
      undefined,
      't2',
      STALE_MS
    );
    await store.acquire(cluster, 'run-of-t2', TTL_MS, clock.now() + 60_000);
    const view = (await store.peek([cluster])).get(cluster);
    // Assess
    expect(afterStale).toBe(true);
    expect(view?.claimedAtMs).toBeUndefined();
    expect(view?.holder).toBe('run-of-t2');
  });

  it('claims a fresh start on a lease whose item expired but is still stored, keeping none of the old lease', async () => {
    // Prepare
    const { store, clock } = setUp();
    const cluster = newCluster();
    await store.acquire(cluster, 'h1', TTL_MS, clock.now() + 60_000);
    await store.checkpoint(cluster, 'h1', { pods: '3' }, TTL_MS, { nodes: 9 });
    await store.recordFailure(cluster, 'h1');
    clock.step(TTL_MS + BOOKMARK_RETENTION_MS + 60_000);
    // Act
    const handOver = await store.claimTakeOver(cluster, 'h1', 't1', STALE_MS);
    const fresh = await store.claimTakeOver(cluster, undefined, 't2', STALE_MS);
    const other = await store.claimTakeOver(cluster, undefined, 't3', STALE_MS);
    const view = (await store.peek([cluster])).get(cluster);
    const versions = await store.acquire(cluster, 'run-of-t2', TTL_MS);
    // Assess
    expect([handOver, fresh, other]).toEqual([false, true, false]);
    expect(view).toEqual({ leaseUntilMs: 0, claimedAtMs: clock.now() });
    expect(versions).toEqual({});
  });

  it('claims a hand-over only from the holder it names, and a fresh start only when the lease is free', async () => {
    // Prepare
    const { store, clock } = setUp();
    const cluster = newCluster();
    await store.acquire(cluster, 'h1', TTL_MS, clock.now() + 60_000);
    // Act
    const fromWrongHolder = await store.claimTakeOver(
      cluster,
      'h0',
      't1',
      STALE_MS
    );
    const whileHeld = await store.claimTakeOver(
      cluster,
      undefined,
      't2',
      STALE_MS
    );
    await store.release(cluster, 'h1');
    const afterRelease = await store.claimTakeOver(
      cluster,
      undefined,
      't3',
      STALE_MS
    );
    // Assess
    expect([fromWrongHolder, whileHeld, afterRelease]).toEqual([
      false,
      false,
      true,
    ]);
  });
});

describe.each(stores)('%s failed runs', (_name, create) => {
  it('counts failed runs in a row, clears them at a checkpoint, and ignores a failure while another holder runs', async () => {
    // Prepare
    const clock = new FakeClock(Date.now());
    const store = create(clock);
    const cluster = newCluster();
    // Act
    await store.recordFailure(cluster, 'r1');
    clock.step(1_000);
    await store.recordFailure(cluster, 'r2');
    const twice = (await store.peek([cluster])).get(cluster)?.failures;
    await store.acquire(cluster, 'r3', TTL_MS, clock.now() + 60_000);
    await store.recordFailure(cluster, 'someone-else');
    const whileHeld = (await store.peek([cluster])).get(cluster)?.failures;
    await store.checkpoint(cluster, 'r3', {}, TTL_MS);
    const afterCheckpoint = (await store.peek([cluster])).get(cluster);
    // Assess
    expect(twice).toEqual({ count: 2, lastAtMs: clock.now() });
    expect(whileHeld).toEqual(twice);
    expect(afterCheckpoint?.failures).toBeUndefined();
  });
});

describe.each(stores)('%s resync requests', (_name, create) => {
  const newStore = () => {
    const clock = new FakeClock(Date.now());
    return { clock, store: create(clock) };
  };

  it('hands a request to every checkpoint until it is completed, and completes only that request', async () => {
    // Prepare
    const { store, clock } = newStore();
    const cluster = newCluster();
    await store.acquire(cluster, 'a', TTL_MS);
    const before = await store.checkpoint(cluster, 'a', {}, TTL_MS);
    await store.requestResync(cluster);
    const first = clock.now();
    // Act
    const taken = await store.checkpoint(cluster, 'a', {}, TTL_MS);
    const again = await store.checkpoint(cluster, 'a', {}, TTL_MS);
    clock.step(1_000);
    await store.requestResync(cluster);
    await store.completeResync(cluster, first);
    const newer = await store.checkpoint(cluster, 'a', {}, TTL_MS);
    await store.completeResync(cluster, clock.now());
    const after = await store.checkpoint(cluster, 'a', {}, TTL_MS);
    // Assess
    expect([before, taken, again, newer, after]).toEqual([
      {},
      { resyncRequestedAtMs: first },
      { resyncRequestedAtMs: first },
      { resyncRequestedAtMs: first + 1_000 },
      {},
    ]);
  });

  it('keeps a request made on an expired lease item for the next bridge, which starts afresh', async () => {
    // Prepare: nothing took the lease for longer than bookmarks are kept.
    const { store, clock } = newStore();
    const cluster = newCluster();
    await store.acquire(cluster, 'a', TTL_MS);
    await store.checkpoint(cluster, 'a', { pods: '9' }, TTL_MS);
    clock.step(TTL_MS + BOOKMARK_RETENTION_MS + 60_000);
    // Act
    await store.requestResync(cluster);
    const versions = await store.acquire(cluster, 'b', TTL_MS);
    const taken = await store.checkpoint(cluster, 'b', {}, TTL_MS);
    // Assess
    expect(versions).toEqual({});
    expect(taken).toEqual({ resyncRequestedAtMs: clock.now() });
  });
});

describe('DynamoBridgeLeaseStore take-over claims under SDK retries', () => {
  it('keeps a claim whose committed write lost its response: the SDK’s retry is granted (F6)', async () => {
    // Prepare
    const own = await createTestTable(inject('dynamodbEndpoint'));
    const clock = new FakeClock(Date.now());
    const store = new DynamoBridgeLeaseStore({ ...own, clock });
    const lost = loseResponsesAfterCommit(own.client, 'UpdateItemCommand');
    // Act
    const claimed = await store.claimTakeOver('c', undefined, 't1', STALE_MS);
    // Assess
    expect(lost.lost).toBe(1);
    expect(claimed).toBe(true);
    own.client.destroy();
  });

  it('keeps the fresh claim of an expired item whose write lost its response', async () => {
    // Prepare
    const own = await createTestTable(inject('dynamodbEndpoint'));
    const clock = new FakeClock(Date.now());
    const store = new DynamoBridgeLeaseStore({ ...own, clock });
    await store.acquire('c', 'h1', TTL_MS);
    clock.step(TTL_MS + BOOKMARK_RETENTION_MS + 60_000);
    const lost = loseResponsesAfterCommit(own.client, 'UpdateItemCommand');
    // Act: the first try fails its condition; the fresh claim's response is lost.
    const claimed = await store.claimTakeOver('c', undefined, 't1', STALE_MS);
    // Assess
    expect(lost.lost).toBe(1);
    expect(claimed).toBe(true);
    own.client.destroy();
  });
});
