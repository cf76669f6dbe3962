import { describe, expect, it } from 'vitest';
import {
  BOOKMARK_RETENTION_MS,
  MemoryBridgeLeaseStore,
} from '#lib/adapters/memory/memory-bridge-lease-store.js';
import { BridgeLeaseLostError } from '#lib/errors.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';

const CLUSTER = 'c1';
const TTL_MS = 30_000;

const newStore = () => {
  const clock = new FakeClock();
  return { clock, store: new MemoryBridgeLeaseStore({ clock }) };
};

describe('MemoryBridgeLeaseStore', () => {
  it('grants a free lease with no resourceVersions', async () => {
    // Prepare
    const { store } = newStore();
    // Act
    const versions = await store.acquire(CLUSTER, 'a', TTL_MS);
    // Assess
    expect(versions).toEqual({});
  });

  it('renews the holder’s lease and returns its checkpointed resourceVersions', async () => {
    // Prepare
    const { store, clock } = newStore();
    await store.acquire(CLUSTER, 'a', TTL_MS);
    await store.checkpoint(CLUSTER, 'a', { pods: '12', nodes: '7' }, TTL_MS);
    clock.step(TTL_MS);
    // Act
    const versions = await store.acquire(CLUSTER, 'a', TTL_MS);
    // Assess
    expect(versions).toEqual({ pods: '12', nodes: '7' });
  });

  it('shows when the last checkpoint was written, across holders', async () => {
    // Prepare
    const { store, clock } = newStore();
    await store.acquire(CLUSTER, 'a', TTL_MS);
    const before = (await store.peek([CLUSTER])).get(CLUSTER);
    clock.step(1_000);
    const checkpointedAt = clock.now();
    await store.checkpoint(CLUSTER, 'a', { pods: '12' }, TTL_MS);
    await store.release(CLUSTER, 'a');
    clock.step(1_000);
    // Act
    await store.acquire(CLUSTER, 'b', TTL_MS);
    const after = (await store.peek([CLUSTER])).get(CLUSTER);
    // Assess
    expect(before?.checkpointedAtMs).toBeUndefined();
    expect(after?.checkpointedAtMs).toBe(checkpointedAt);
  });

  it('refuses the lease to another holder until it has run out', async () => {
    // Prepare
    const { store, clock } = newStore();
    await store.acquire(CLUSTER, 'a', TTL_MS);
    await store.checkpoint(CLUSTER, 'a', { pods: '12' }, TTL_MS);
    clock.step(TTL_MS);
    const whileHeld = await store.acquire(CLUSTER, 'b', TTL_MS);
    // Act
    clock.step(1);
    const afterExpiry = await store.acquire(CLUSTER, 'b', TTL_MS);
    // Assess
    expect(whileHeld).toBeUndefined();
    expect(afterExpiry).toEqual({ pods: '12' });
  });

  it('grants exactly one of 10 bridges acquiring at once', async () => {
    // Prepare
    const { store } = newStore();
    // Act
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store.acquire(CLUSTER, `bridge-${i}`, TTL_MS)
      )
    );
    // Assess
    expect(results.filter((r) => r !== undefined)).toHaveLength(1);
  });

  it('extends the lease on checkpoint', async () => {
    // Prepare
    const { store, clock } = newStore();
    await store.acquire(CLUSTER, 'a', TTL_MS);
    clock.step(TTL_MS - 1);
    // Act
    await store.checkpoint(CLUSTER, 'a', { pods: '1' }, TTL_MS);
    clock.step(TTL_MS - 1);
    // Assess
    expect(await store.acquire(CLUSTER, 'b', TTL_MS)).toBeUndefined();
  });

  it('fences the old holder: its checkpoint after a takeover throws and leaves the successor’s resourceVersions', async () => {
    // Prepare
    const { store, clock } = newStore();
    await store.acquire(CLUSTER, 'old', TTL_MS);
    clock.step(TTL_MS + 1);
    await store.acquire(CLUSTER, 'new', TTL_MS);
    await store.checkpoint(CLUSTER, 'new', { pods: 'fresh' }, TTL_MS);
    // Act
    const late = store.checkpoint(CLUSTER, 'old', { pods: 'stale' }, TTL_MS);
    // Assess
    await expect(late).rejects.toBeInstanceOf(BridgeLeaseLostError);
    expect(await store.acquire(CLUSTER, 'new', TTL_MS)).toEqual({
      pods: 'fresh',
    });
  });

  it('refuses a checkpoint once the holder’s own lease has run out', async () => {
    // Prepare
    const { store, clock } = newStore();
    await store.acquire(CLUSTER, 'a', TTL_MS);
    clock.step(TTL_MS + 1);
    // Act
    const checkpoint = store.checkpoint(CLUSTER, 'a', { pods: '9' }, TTL_MS);
    // Assess
    await expect(checkpoint).rejects.toBeInstanceOf(BridgeLeaseLostError);
  });

  it('refuses a checkpoint of a cluster never leased', async () => {
    // Prepare
    const { store } = newStore();
    // Act
    const checkpoint = store.checkpoint(CLUSTER, 'a', {}, TTL_MS);
    // Assess
    await expect(checkpoint).rejects.toBeInstanceOf(BridgeLeaseLostError);
  });

  it('hands the lease over at once on release, keeping the resourceVersions', async () => {
    // Prepare
    const { store } = newStore();
    await store.acquire(CLUSTER, 'a', TTL_MS);
    await store.checkpoint(CLUSTER, 'a', { pods: '3' }, TTL_MS);
    // Act
    await store.release(CLUSTER, 'a');
    const versions = await store.acquire(CLUSTER, 'b', TTL_MS);
    // Assess
    expect(versions).toEqual({ pods: '3' });
  });

  it('ignores a release by anyone but the holder', async () => {
    // Prepare
    const { store } = newStore();
    await store.acquire(CLUSTER, 'a', TTL_MS);
    // Act
    await store.release(CLUSTER, 'b');
    // Assess
    expect(await store.acquire(CLUSTER, 'b', TTL_MS)).toBeUndefined();
  });

  it('forgets resourceVersions older than the bookmark retention', async () => {
    // Prepare
    const { store, clock } = newStore();
    await store.acquire(CLUSTER, 'a', TTL_MS);
    await store.checkpoint(CLUSTER, 'a', { pods: '3' }, TTL_MS);
    clock.step(TTL_MS + BOOKMARK_RETENTION_MS);
    const atRetention = await store.acquire(CLUSTER, 'b', TTL_MS);
    clock.step(TTL_MS + BOOKMARK_RETENTION_MS + 1);
    // Act
    const pastRetention = await store.acquire(CLUSTER, 'c', TTL_MS);
    // Assess
    expect(atRetention).toEqual({ pods: '3' });
    expect(pastRetention).toEqual({});
  });

  it('returns a copy the caller cannot change the store through', async () => {
    // Prepare
    const { store } = newStore();
    await store.acquire(CLUSTER, 'a', TTL_MS);
    await store.checkpoint(CLUSTER, 'a', { pods: '3' }, TTL_MS);
    const versions = (await store.acquire(CLUSTER, 'a', TTL_MS)) as Record<
      string,
      string
    >;
    // Act
    versions.pods = 'changed';
    // Assess
    expect(await store.acquire(CLUSTER, 'a', TTL_MS)).toEqual({ pods: '3' });
  });
});
