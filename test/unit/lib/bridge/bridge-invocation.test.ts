/**
 * runBridgeTurn over fakes: every cluster of a turn runs on its own — an
 * unreachable cluster fails alone, a removed one is skipped, an invalid
 * record is reported and counted — and the turn's event is checked at the
 * door.
 */
import { describe, expect, it } from 'vitest';
import { MemoryBridgeLeaseStore } from '#lib/adapters/memory/memory-bridge-lease-store.js';
import { MemoryExpectationsStore } from '#lib/adapters/memory/memory-expectations-store.js';
import { MemoryNodeIndexStore } from '#lib/adapters/memory/memory-node-index-store.js';
import {
  MIN_RUN_MS,
  retryWithinTurn,
  runBridgeTurn,
  runDeadlineMs,
} from '#lib/bridge/bridge-invocation.js';
import { parseBridgeTurn } from '#lib/bridge/bridge-turn.js';
import { InvalidClusterRecordError } from '#lib/cluster/record.js';
import { InvalidBridgeTurnError } from '#lib/errors.js';
import type { ClusterRecord, WorkQueue } from '#lib/ports/index.js';
import { FakeClock } from '../../../helpers/fakes/fake-clock.js';
import { FakeLogger } from '../../../helpers/fakes/fake-logger.js';
import { MemoryClusterRegistry } from '../../../helpers/fakes/memory-cluster-registry.js';

const record = (id: string): ClusterRecord => ({
  id,
  endpoint: '',
  caData: '',
  auth: { type: 'kubeconfig', path: '/dev/null' },
  ownership: 'apps/v1',
  bridgeMode: 'economy',
});

describe('runBridgeTurn', () => {
  it('runs each cluster of the turn on its own: unreachable fails alone, removed is skipped, invalid is reported (F1)', async () => {
    // Prepare
    const clock = new FakeClock();
    const logger = new FakeLogger();
    const registry = new MemoryClusterRegistry([record('a'), record('c')]);
    const get = registry.get.bind(registry);
    registry.get = async (id) => {
      if (id === 'b') {
        throw new InvalidClusterRecordError('b', [
          { field: 'color', problem: 'is not a known field' },
        ]);
      }
      return get(id);
    };
    const connected: string[] = [];
    const leases = new MemoryBridgeLeaseStore({ clock });
    const queue: WorkQueue = {
      add: async () => {},
      addAfter: async () => {},
      addAnew: async () => {},
    };
    const stopAtMs = clock.now() + 5_000;
    // Act
    const results = await runBridgeTurn(
      {
        registry,
        connect: async (r) => {
          connected.push(r.id);
          throw new Error(`cluster ${r.id} unreachable`);
        },
        queue,
        expectations: new MemoryExpectationsStore({ clock }),
        leases,
        nodeIndex: new MemoryNodeIndexStore(),
        clock,
        logger,
      },
      {
        mode: 'economy',
        clusters: ['a', 'b', 'gone', 'c'].map((cluster) => ({
          cluster,
          stopAtMs,
        })),
      },
      { invocationId: 'i-1', remainingMs: 60_000, resyncSeconds: 3_600 }
    );
    // Assess
    expect(connected).toEqual(['a', 'c']);
    expect(results.map((r) => [r.cluster, r.outcome])).toEqual([
      ['a', 'failed'],
      ['b', 'invalid-record'],
      ['gone', 'unregistered'],
      ['c', 'failed'],
    ]);
    // Failed runs are noted for the dispatcher's backoff; the others not.
    const views = await leases.peek(['a', 'b', 'c']);
    expect(views.get('a')?.failures?.count).toBe(1);
    expect(views.get('c')?.failures?.count).toBe(1);
    expect(views.get('b')).toBeUndefined();
    expect(
      logger.lines.find(
        (l) => l.message === 'invalid cluster record; not bridged'
      )?.fields
    ).toMatchObject({ cluster: 'b' });
  });
});

describe('retryWithinTurn', () => {
  const failingOnce = () => {
    const firsts: boolean[] = [];
    const run = async (first: boolean) => {
      firsts.push(first);
      if (firsts.length === 1) throw new Error('DynamoDB checkpoint failed');
      return { cluster: 'a', outcome: 'done' as const, events: 3 };
    };
    return { firsts, run };
  };

  it('no-pod-on-ineligible-node: runs a failed watch-mode run again within its turn, without the hand-over, instead of leaving the cluster unwatched until the next tick', async () => {
    // Prepare
    const clock = new FakeClock();
    const logger = new FakeLogger();
    const { firsts, run } = failingOnce();
    // Act
    const report = await retryWithinTurn(run, {
      retry: true,
      deadlineMs: clock.now() + 60_000,
      clock,
      logger,
    });
    // Assess
    expect(report.outcome).toBe('done');
    expect(firsts).toEqual([true, false]);
    expect(logger.lines.map((l) => l.message)).toEqual([
      'bridge run failed; running it again',
    ]);
  });

  it.each([
    ['an economy run', false, 60_000],
    ['a run whose turn ends before the retry', true, 500],
  ])('gives %s up at once', async (_name, retry, leftMs) => {
    const clock = new FakeClock();
    const { firsts, run } = failingOnce();
    await expect(
      retryWithinTurn(run, {
        retry,
        deadlineMs: clock.now() + leftMs,
        clock,
        logger: new FakeLogger(),
      })
    ).rejects.toThrow('DynamoDB checkpoint failed');
    expect(firsts).toEqual([true]);
  });
});

describe('runDeadlineMs', () => {
  it("converges-after-faults: lets a run whose clock is ahead of the dispatcher's watch for a while instead of finding its turn over (campaign seed 1018)", () => {
    // A turn planned to end 1.5 s after launch, on a container 1.8 s ahead.
    const now = 1_000_000;
    expect(runDeadlineMs(now, now + 880_000, now - 300)).toBe(now + MIN_RUN_MS);
    // A normal turn keeps its end; the function's timeout bounds both.
    expect(runDeadlineMs(now, now + 880_000, now + 60_000)).toBe(now + 60_000);
    expect(runDeadlineMs(now, now + 2_000, now - 300)).toBe(now + 2_000);
  });
});

describe('parseBridgeTurn', () => {
  const stopAtMs = 1_800_000_000_000;

  it('accepts a turn and a hand-over', () => {
    // Act
    const turn = parseBridgeTurn({
      mode: 'watch',
      clusters: [
        { cluster: 'a', stopAtMs },
        { cluster: 'b', stopAtMs, after: { holder: 'h', runUntilMs: 5 } },
      ],
    });
    // Assess
    expect(turn.clusters[1]?.after).toEqual({ holder: 'h', runUntilMs: 5 });
  });

  it.each([
    ['a scheduled event', { source: 'aws.events' }, 'mode must be'],
    ['no clusters', { mode: 'watch', clusters: [] }, 'non-empty'],
    [
      'a bad id',
      { mode: 'watch', clusters: [{ cluster: 'A/B', stopAtMs }] },
      'clusters[0].cluster',
    ],
    [
      'no end',
      { mode: 'economy', clusters: [{ cluster: 'a' }] },
      'clusters[0].stopAtMs',
    ],
    [
      'a hand-over without holder',
      {
        mode: 'watch',
        clusters: [{ cluster: 'a', stopAtMs, after: { runUntilMs: 1 } }],
      },
      'clusters[0].after',
    ],
    ['null', null, 'not an object'],
  ])('refuses %s with one clear line', (_name, event, problem) => {
    // Act
    const error = (() => {
      try {
        parseBridgeTurn(event);
      } catch (e) {
        return e;
      }
    })();
    // Assess
    expect(error).toBeInstanceOf(InvalidBridgeTurnError);
    expect((error as Error).message).toContain(problem);
    expect((error as Error).message).not.toContain('\n');
  });
});
