/**
 * A successor bridge run takes its cluster's lease as soon as the run it
 * succeeds releases it (a watch cluster is unwatched for about one poll at
 * a hand-over), takes it once a crashed predecessor's lease runs out, and
 * steps aside when another run took it.
 */
import { describe, expect, it } from 'vitest';
import { MemoryBridgeLeaseStore } from '#lib/adapters/memory/memory-bridge-lease-store.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { abortableSleep } from '#lib/bridge/abortable-sleep.js';
import {
  TAKE_OVER_POLL_MS,
  takeLease,
  whileHoldingLease,
} from '#lib/bridge/take-lease.js';

const setUp = async (ttlMs: number, endsInMs: number) => {
  const leases = new MemoryBridgeLeaseStore({ clock: systemClock });
  const runUntilMs = systemClock.now() + endsInMs;
  await leases.acquire('c', 'old', ttlMs, runUntilMs);
  const successor = () =>
    takeLease(
      { cluster: 'c', holder: 'new', leases, clock: systemClock },
      {
        ttlMs,
        runUntilMs: runUntilMs + 60_000,
        after: { holder: 'old', runUntilMs },
      }
    );
  return { leases, runUntilMs, successor };
};

describe('takeLease', () => {
  it('takes the lease within a poll of the predecessor releasing it', async () => {
    // Prepare
    const { leases, successor } = await setUp(60_000, 300);
    // Act
    const taking = successor().then((v) => ({ v, atMs: systemClock.now() }));
    await abortableSleep(300);
    const releasedAt = systemClock.now();
    await leases.release('c', 'old');
    const taken = await taking;
    // Assess
    expect(taken.v).toEqual({});
    expect(taken.atMs - releasedAt).toBeLessThanOrEqual(
      TAKE_OVER_POLL_MS + 150
    );
    expect((await leases.peek(['c'])).get('c')?.holder).toBe('new');
  });

  it('takes over from a predecessor that died holding the lease once it runs out', async () => {
    // Prepare
    const { leases, successor } = await setUp(400, 100);
    // Act
    const versions = await successor();
    // Assess
    expect(versions).toEqual({});
    expect((await leases.peek(['c'])).get('c')?.holder).toBe('new');
  });

  it('steps aside when another run took the lease over', async () => {
    // Prepare
    const { leases, successor } = await setUp(300, 100);
    await abortableSleep(350);
    await leases.acquire('c', 'someone-else', 60_000, systemClock.now() + 1);
    // Act
    const versions = await successor();
    // Assess
    expect(versions).toBeUndefined();
    expect((await leases.peek(['c'])).get('c')?.holder).toBe('someone-else');
  });

  it('takes a free lease at once without waiting, and a held one not at all without a hand-over', async () => {
    // Prepare
    const leases = new MemoryBridgeLeaseStore({ clock: systemClock });
    await leases.acquire('held', 'h', 60_000);
    const deps = (cluster: string) => ({
      cluster,
      holder: 'me',
      leases,
      clock: systemClock,
    });
    const opts = { ttlMs: 60_000, runUntilMs: systemClock.now() + 10_000 };
    // Act
    const free = await takeLease(deps('free'), opts);
    const held = await takeLease(deps('held'), opts);
    // Assess
    expect(free).toEqual({});
    expect(held).toBeUndefined();
    expect((await leases.peek(['free'])).get('free')).toMatchObject({
      holder: 'me',
      runUntilMs: opts.runUntilMs,
    });
  });

  it('keeps the lease of a run whose start outlasts the TTL (a slow relist), so no second run is launched', async () => {
    // Prepare
    const leases = new MemoryBridgeLeaseStore({ clock: systemClock });
    const deps = { cluster: 'c', holder: 'me', leases, clock: systemClock };
    const opts = { ttlMs: 300, runUntilMs: systemClock.now() + 10_000 };
    await leases.acquire('c', 'me', opts.ttlMs, opts.runUntilMs);
    const seen: boolean[] = [];
    // Act: three TTLs of work, the lease looked at every 100 ms.
    const result = await whileHoldingLease(deps, opts, async () => {
      for (let i = 0; i < 9; i++) {
        await abortableSleep(100);
        const lease = (await leases.peek(['c'])).get('c');
        seen.push((lease?.leaseUntilMs ?? 0) >= systemClock.now());
      }
      return 'started';
    });
    const other = await leases.acquire('c', 'other', 300);
    // Assess
    expect(result).toBe('started');
    expect(seen.every(Boolean)).toBe(true);
    expect(other).toBeUndefined();
  });
});
