/**
 * DynamoBridgeLeaseStore against DynamoDB Local: one bridge per cluster,
 * takeover only after expiry, checkpoints fenced by the lease.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoBridgeLeaseStore } from '#lib/adapters/dynamodb/dynamo-bridge-lease-store.js';
import {
  KeyPrefix,
  partitionKey,
} from '#lib/adapters/dynamodb/table-schema.js';
import { BridgeLeaseLostError } from '#lib/errors.js';
import {
  createTestTable,
  type TestTable,
  writeItem,
} from '#test/helpers/dynamo-table.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';
import { loseResponsesAfterCommit } from '#test/helpers/lose-response.js';

const TTL_MS = 30_000;
let table: TestTable;
let clusterCount = 0;

/** Returns a cluster id no other test uses. */
const newCluster = (): string => `cluster-${++clusterCount}`;

const newStore = (t: TestTable = table) => {
  const clock = new FakeClock(Date.now());
  return { clock, store: new DynamoBridgeLeaseStore({ ...t, clock }) };
};

beforeAll(async () => {
  table = await createTestTable(inject('dynamodbEndpoint'));
});
afterAll(() => {
  table.client.destroy();
});

describe('DynamoBridgeLeaseStore', () => {
  it('grants a free lease with no resourceVersions', async () => {
    // Prepare
    const { store } = newStore();
    // Act
    const versions = await store.acquire(newCluster(), 'a', TTL_MS);
    // Assess
    expect(versions).toEqual({});
  });

  it('renews the holder’s lease and returns its checkpointed resourceVersions', async () => {
    // Prepare
    const { store, clock } = newStore();
    const cluster = newCluster();
    await store.acquire(cluster, 'a', TTL_MS);
    await store.checkpoint(cluster, 'a', { pods: '12', nodes: '7' }, TTL_MS);
    clock.step(TTL_MS);
    // Act
    const versions = await store.acquire(cluster, 'a', TTL_MS);
    // Assess
    expect(versions).toEqual({ pods: '12', nodes: '7' });
  });

  it('refuses the lease to another holder until it has run out', async () => {
    // Prepare
    const { store, clock } = newStore();
    const cluster = newCluster();
    await store.acquire(cluster, 'a', TTL_MS);
    await store.checkpoint(cluster, 'a', { pods: '12' }, TTL_MS);
    clock.step(TTL_MS);
    const whileHeld = await store.acquire(cluster, 'b', TTL_MS);
    // Act
    clock.step(1);
    const afterExpiry = await store.acquire(cluster, 'b', TTL_MS);
    // Assess
    expect(whileHeld).toBeUndefined();
    expect(afterExpiry).toEqual({ pods: '12' });
  });

  it('extends the lease on checkpoint', async () => {
    // Prepare
    const { store, clock } = newStore();
    const cluster = newCluster();
    await store.acquire(cluster, 'a', TTL_MS);
    clock.step(TTL_MS - 1);
    // Act
    await store.checkpoint(cluster, 'a', { pods: '1' }, TTL_MS);
    clock.step(TTL_MS - 1);
    // Assess
    expect(await store.acquire(cluster, 'b', TTL_MS)).toBeUndefined();
  });

  it('refuses a checkpoint once the holder’s own lease has run out', async () => {
    // Prepare
    const { store, clock } = newStore();
    const cluster = newCluster();
    await store.acquire(cluster, 'a', TTL_MS);
    clock.step(TTL_MS + 1);
    // Act
    const checkpoint = store.checkpoint(cluster, 'a', { pods: '9' }, TTL_MS);
    // Assess
    await expect(checkpoint).rejects.toBeInstanceOf(BridgeLeaseLostError);
  });

  it('refuses a checkpoint of a cluster never leased', async () => {
    // Prepare
    const { store } = newStore();
    const cluster = newCluster();
    // Act
    const checkpoint = store.checkpoint(cluster, 'a', {}, TTL_MS);
    // Assess
    await expect(checkpoint).rejects.toThrow(
      new BridgeLeaseLostError(cluster).message
    );
  });

  it('hands the lease over at once on release, keeping the resourceVersions', async () => {
    // Prepare
    const { store } = newStore();
    const cluster = newCluster();
    await store.acquire(cluster, 'a', TTL_MS);
    await store.checkpoint(cluster, 'a', { pods: '3' }, TTL_MS);
    // Act
    await store.release(cluster, 'a');
    const versions = await store.acquire(cluster, 'b', TTL_MS);
    // Assess
    expect(versions).toEqual({ pods: '3' });
  });

  it('ignores a release by anyone but the holder', async () => {
    // Prepare
    const { store } = newStore();
    const cluster = newCluster();
    await store.acquire(cluster, 'a', TTL_MS);
    // Act
    await store.release(cluster, 'b');
    // Assess
    expect(await store.acquire(cluster, 'b', TTL_MS)).toBeUndefined();
  });

  describe('when TTL has not yet deleted an expired item', () => {
    let stale: TestTable;
    beforeAll(async () => {
      stale = await createTestTable(inject('dynamodbEndpoint'), { ttl: false });
    });
    afterAll(() => {
      stale.client.destroy();
    });

    it('grants the lease with no resourceVersions', async () => {
      // Prepare: a lease that looks held, but whose expiresAt has passed.
      const { store, clock } = newStore(stale);
      const cluster = newCluster();
      await writeItem(stale, partitionKey(KeyPrefix.lease, cluster), {
        holder: { S: 'ghost' },
        leaseUntilMs: { N: String(clock.now() + TTL_MS) },
        resourceVersions: { M: { pods: { S: '1' } } },
        expiresAt: { N: String(Math.floor(clock.now() / 1_000) - 60) },
      });
      // Act
      const versions = await store.acquire(cluster, 'b', TTL_MS);
      // Assess
      expect(versions).toEqual({});
      await expect(
        store.checkpoint(cluster, 'ghost', { pods: '2' }, TTL_MS)
      ).rejects.toBeInstanceOf(BridgeLeaseLostError);
    });
  });

  describe('races', () => {
    it('grants exactly one of 10 bridges acquiring at once', async () => {
      // Prepare
      const { store } = newStore();
      const cluster = newCluster();
      // Act
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store.acquire(cluster, `bridge-${i}`, TTL_MS)
        )
      );
      // Assess
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
    });

    it('lets exactly one of 10 bridges take over an expired lease', async () => {
      // Prepare
      const { store, clock } = newStore();
      const cluster = newCluster();
      await store.acquire(cluster, 'old', TTL_MS);
      clock.step(TTL_MS + 1);
      // Act
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store.acquire(cluster, `bridge-${i}`, TTL_MS)
        )
      );
      // Assess
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
      expect(await store.acquire(cluster, 'old', TTL_MS)).toBeUndefined();
    });

    it('fences the old holder: its checkpoint after a takeover throws and leaves the successor’s resourceVersions', async () => {
      // Prepare
      const { store, clock } = newStore();
      const cluster = newCluster();
      await store.acquire(cluster, 'old', TTL_MS);
      clock.step(TTL_MS + 1);
      await store.acquire(cluster, 'new', TTL_MS);
      // Act: both write at once; only the holder's write may land.
      const [late, current] = await Promise.allSettled([
        store.checkpoint(cluster, 'old', { pods: 'stale' }, TTL_MS),
        store.checkpoint(cluster, 'new', { pods: 'fresh' }, TTL_MS),
      ]);
      // Assess
      expect(late.status).toBe('rejected');
      expect(late.status === 'rejected' && late.reason).toBeInstanceOf(
        BridgeLeaseLostError
      );
      expect(current.status).toBe('fulfilled');
      expect(await store.acquire(cluster, 'new', TTL_MS)).toEqual({
        pods: 'fresh',
      });
    });
  });

  describe('resync requests (after an unfence)', () => {
    it('keeps a request through a checkpoint whose committed write lost its response', async () => {
      // Prepare
      const own = await createTestTable(inject('dynamodbEndpoint'));
      const { store, clock } = newStore(own);
      await store.acquire('c', 'a', TTL_MS);
      await store.requestResync('c');
      const lost = loseResponsesAfterCommit(own.client, 'UpdateItemCommand');
      // Act
      const taken = await store.checkpoint('c', 'a', { pods: '1' }, TTL_MS);
      // Assess
      expect(lost.lost).toBe(1);
      expect(taken).toEqual({ resyncRequestedAtMs: clock.now() });
      own.client.destroy();
    });

    it('keeps a request for the next bridge, also on a cluster never bridged', async () => {
      // Prepare
      const { store, clock } = newStore();
      const bridged = newCluster();
      const never = newCluster();
      await store.acquire(bridged, 'a', TTL_MS);
      await store.checkpoint(bridged, 'a', { pods: '9' }, TTL_MS);
      await store.release(bridged, 'a');
      // Act
      await store.requestResync(bridged);
      await store.requestResync(never);
      // Assess: the next holder gets its bookmarks, and the request at its
      // first checkpoint.
      const requested = { resyncRequestedAtMs: clock.now() };
      expect(await store.acquire(bridged, 'b', TTL_MS)).toEqual({ pods: '9' });
      expect(
        await store.checkpoint(bridged, 'b', { pods: '10' }, TTL_MS)
      ).toEqual(requested);
      expect(await store.acquire(never, 'b', TTL_MS)).toEqual({});
      expect(await store.checkpoint(never, 'b', { pods: '1' }, TTL_MS)).toEqual(
        requested
      );
    });
  });

  it('forgets a cluster: its bookmarks are gone and a running holder loses the lease', async () => {
    // Prepare
    const { store } = newStore();
    const cluster = newCluster();
    await store.acquire(cluster, 'a', TTL_MS);
    await store.checkpoint(cluster, 'a', { pods: '12' }, TTL_MS);
    // Act
    await store.forget(cluster);
    const checkpoint = await store
      .checkpoint(cluster, 'a', { pods: '13' }, TTL_MS)
      .catch((e: unknown) => e);
    // Assess
    expect(checkpoint).toBeInstanceOf(BridgeLeaseLostError);
    expect(await store.acquire(cluster, 'b', TTL_MS)).toEqual({});
  });
});
