/**
 * dispatchBridgeTurns over the in-memory registry and leases: a bridge turn
 * per cluster or pack, never two launches for one run (claims), invalid
 * records skipped and counted (F1), a refused launch retried once its claim
 * is stale, and economy clusters drained every tick whatever the watch
 * clusters do (F4).
 */
import { describe, expect, it } from 'vitest';
import { MemoryBridgeLeaseStore } from '#lib/adapters/memory/memory-bridge-lease-store.js';
import {
  type BridgeDispatchOptions,
  dispatchBridgeTurns,
} from '#lib/bridge/dispatch-bridge-turns.js';
import type {
  BridgeLauncher,
  BridgeTurn,
  ClusterRecord,
} from '#lib/ports/index.js';
import { FakeClock } from '../../../helpers/fakes/fake-clock.js';
import { FakeLogger } from '../../../helpers/fakes/fake-logger.js';
import { MemoryClusterRegistry } from '../../../helpers/fakes/memory-cluster-registry.js';

const record = (
  id: string,
  bridgeMode: ClusterRecord['bridgeMode']
): ClusterRecord => ({
  id,
  endpoint: '',
  caData: '',
  auth: { type: 'kubeconfig', path: '/dev/null' },
  ownership: 'apps/v1',
  bridgeMode,
});

class RecordingLauncher implements BridgeLauncher {
  readonly turns: BridgeTurn[] = [];
  refuse = new Set<string>();
  async launch(turn: BridgeTurn): Promise<void> {
    if (turn.clusters.some((c) => this.refuse.has(c.cluster))) {
      throw new Error('Rate exceeded');
    }
    this.turns.push(turn);
  }
  launched(): string[] {
    return this.turns.flatMap((t) => t.clusters.map((c) => c.cluster));
  }
}

const setUp = (records: ClusterRecord[]) => {
  const clock = new FakeClock();
  const logger = new FakeLogger();
  const registry = new MemoryClusterRegistry(records);
  const leases = new MemoryBridgeLeaseStore({ clock });
  const launcher = new RecordingLauncher();
  let ticks = 0;
  const opts = (): BridgeDispatchOptions => ({
    tickId: `tick-${++ticks}`,
    watchSeconds: 840,
    economySeconds: 20,
    clustersPerTurn: 10,
    nodesPerTurn: 5_000,
  });
  const tick = () =>
    dispatchBridgeTurns({ registry, leases, launcher, clock, logger }, opts());
  return { clock, logger, registry, leases, launcher, tick };
};

describe('dispatchBridgeTurns', () => {
  it('launches economy clusters alone and packs watch clusters, each run once however often it ticks', async () => {
    // Prepare
    const bed = setUp([
      record('w1', 'watch'),
      record('w2', 'watch'),
      record('e1', 'economy'),
      record('e2', 'economy'),
    ]);
    // Act: two ticks in the same second (a late one and the next).
    const first = await bed.tick();
    const second = await bed.tick();
    // Assess
    expect(bed.launcher.turns.map((t) => t.mode).sort()).toEqual([
      'economy',
      'economy',
      'watch',
    ]);
    expect(bed.launcher.launched().sort()).toEqual(['e1', 'e2', 'w1', 'w2']);
    expect(first.launched).toHaveLength(3);
    expect(second.launched).toEqual([]);
  });

  it('launches economy runs beyond the burst after their planned delays, within a third of the tick', async () => {
    // Prepare
    const bed = setUp([
      record('w', 'watch'),
      ...['e1', 'e2', 'e3', 'e4'].map((id) => record(id, 'economy')),
    ]);
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    // Act
    const report = await dispatchBridgeTurns(
      { ...bed, sleep },
      {
        tickId: 'tick-1',
        watchSeconds: 840,
        economySeconds: 20,
        clustersPerTurn: 10,
        nodesPerTurn: 5_000,
        economyBurst: 2,
      }
    );
    // Assess
    expect(bed.launcher.launched().sort()).toEqual([
      'e1',
      'e2',
      'e3',
      'e4',
      'w',
    ]);
    expect(report.launched).toHaveLength(5);
    expect(waits).toHaveLength(4);
    for (const ms of waits) {
      expect(ms).toBeGreaterThan(0);
      expect(ms).toBeLessThanOrEqual(20_000);
    }
    const economy = bed.launcher.turns.filter((t) => t.mode === 'economy');
    for (const turn of economy) {
      expect(turn.clusters[0]?.stopAtMs).toBeGreaterThan(
        bed.clock.now() + 20_000
      );
    }
  });

  it('skips an invalid registry item, logs and counts it, and launches every valid cluster (F1)', async () => {
    // Prepare
    const bed = setUp([record('a', 'economy'), record('c', 'economy')]);
    bed.registry.invalid.push({
      key: 'cluster#b',
      error: 'cluster b: unknown field "color"',
    });
    // Act
    const report = await bed.tick();
    // Assess
    expect(bed.launcher.launched()).toEqual(['a', 'c']);
    expect(report.invalid).toEqual([
      { key: 'cluster#b', error: 'cluster b: unknown field "color"' },
    ]);
    expect(
      bed.logger.lines.find(
        (l) => l.message === 'invalid cluster record skipped'
      )?.fields
    ).toMatchObject({ record: 'cluster#b', invalidRecords: 1 });
  });

  it('launches the others when Lambda refuses one turn, and that one again once its claim is stale', async () => {
    // Prepare
    const bed = setUp([record('a', 'economy'), record('b', 'economy')]);
    bed.launcher.refuse.add('a');
    // Act
    const refused = await bed.tick();
    bed.launcher.refuse.clear();
    bed.clock.step(60_000);
    const tooSoon = await bed.tick();
    bed.clock.step(4 * 60_000);
    const later = await bed.tick();
    // Assess
    expect(refused.failedLaunches).toBe(1);
    expect(refused.launched.flatMap((t) => t.clusters)).toMatchObject([
      { cluster: 'b' },
    ]);
    // b's run never took its lease either: both claims went stale.
    expect(tooSoon.launched).toEqual([]);
    expect(
      later.launched.flatMap((t) => t.clusters.map((c) => c.cluster)).sort()
    ).toEqual(['a', 'b']);
  });

  it('counts and logs a claim that fails, launches the others, and that one at the next tick', async () => {
    // Prepare
    const bed = setUp([record('a', 'economy'), record('b', 'economy')]);
    const claim = bed.leases.claimTakeOver.bind(bed.leases);
    let refusals = 1;
    bed.leases.claimTakeOver = async (cluster, ...rest) => {
      if (cluster === 'a' && refusals-- > 0) {
        throw new Error('AccessDeniedException');
      }
      return claim(cluster, ...rest);
    };
    // Act
    const refused = await bed.tick();
    bed.clock.step(60_000);
    const next = await bed.tick();
    // Assess
    expect(refused.failedClaims).toBe(1);
    expect(refused.launched.flatMap((t) => t.clusters)).toMatchObject([
      { cluster: 'b' },
    ]);
    expect(
      bed.logger.lines.find((l) => l.message === 'bridge run not claimed')
        ?.fields
    ).toMatchObject({ cluster: 'a', error: 'AccessDeniedException' });
    expect(next.failedClaims).toBe(0);
    expect(next.launched.flatMap((t) => t.clusters)).toMatchObject([
      { cluster: 'a' },
    ]);
  });

  it('drains economy clusters every tick while watch runs hold their leases (F4)', async () => {
    // Prepare
    const bed = setUp([record('w', 'watch'), record('e', 'economy')]);
    const economyRuns: number[] = [];
    // Act: ten minutes of ticks; each launched run takes its lease, the
    // economy one drains and releases within its tick.
    for (let minute = 0; minute < 10; minute++) {
      const report = await bed.tick();
      for (const turn of report.launched) {
        for (const part of turn.clusters) {
          const holder = `run-${minute}-${part.cluster}`;
          await bed.leases.acquire(part.cluster, holder, 60_000, part.stopAtMs);
          if (turn.mode === 'economy') {
            economyRuns.push(minute);
            await bed.leases.release(part.cluster, holder);
          }
        }
      }
      bed.clock.step(30_000);
      // The watch run renews its lease as it checkpoints.
      const w = (await bed.leases.peek(['w'])).get('w');
      if (w?.holder && w.leaseUntilMs >= bed.clock.now()) {
        await bed.leases.checkpoint('w', w.holder, {}, 60_000);
      }
      bed.clock.step(30_000);
    }
    // Assess
    expect(economyRuns).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(bed.launcher.launched().filter((c) => c === 'w')).toHaveLength(1);
  });

  it('relaunches a cluster whose bridge runs keep failing at doubling intervals, not at every tick (no storm)', async () => {
    // Prepare
    const bed = setUp([record('dead', 'economy'), record('fine', 'economy')]);
    const launchedAt: Record<string, number[]> = { dead: [], fine: [] };
    // Act: ten minutes of 5-s ticks; every run of `dead` fails.
    for (let t = 0; t < 120; t++) {
      const report = await bed.tick();
      for (const part of report.launched.flatMap((x) => x.clusters)) {
        launchedAt[part.cluster]?.push(t * 5);
        const holder = `run-${t}-${part.cluster}`;
        await bed.leases.acquire(part.cluster, holder, 60_000, part.stopAtMs);
        if (part.cluster === 'dead') {
          await bed.leases.release(part.cluster, holder);
          await bed.leases.recordFailure(part.cluster, holder);
        } else {
          await bed.leases.checkpoint(part.cluster, holder, {}, 60_000);
          await bed.leases.release(part.cluster, holder);
        }
      }
      bed.clock.step(5_000);
    }
    // Assess
    const dead = launchedAt.dead ?? [];
    const gaps = dead.slice(1).map((at, i) => at - (dead[i] ?? 0));
    expect(dead.length).toBeLessThanOrEqual(8);
    expect(gaps).toEqual([...gaps].sort((a, b) => a - b));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(305);
    expect(launchedAt.fine).toHaveLength(120);
  });

  it('reports the age of each registered cluster’s last checkpoint, none for a cluster never checkpointed', async () => {
    // Prepare
    const bed = setUp([
      record('fresh', 'watch'),
      record('stale', 'economy'),
      record('never', 'economy'),
    ]);
    await bed.leases.acquire('stale', 'run-1', 60_000);
    await bed.leases.checkpoint('stale', 'run-1', {}, 60_000);
    await bed.leases.release('stale', 'run-1');
    bed.clock.step(5 * 60_000);
    await bed.leases.acquire('fresh', 'run-2', 60_000);
    await bed.leases.checkpoint('fresh', 'run-2', {}, 60_000);
    await bed.leases.acquire('never', 'run-3', 60_000);
    bed.clock.step(10_000);
    // Act
    const report = await bed.tick();
    // Assess
    expect(report.checkpointAges).toEqual([
      { cluster: 'fresh', ageMs: 10_000 },
      { cluster: 'stale', ageMs: 5 * 60_000 + 10_000 },
    ]);
  });

  it('launches the successor of a watch run ahead of its end, naming the run it takes over from', async () => {
    // Prepare
    const bed = setUp([record('w', 'watch')]);
    const runUntil = bed.clock.now() + 80_000;
    await bed.leases.acquire('w', 'old-run', 60_000, runUntil);
    // Act
    const report = await bed.tick();
    // Assess
    expect(report.launched).toEqual([
      {
        mode: 'watch',
        clusters: [
          {
            cluster: 'w',
            stopAtMs: runUntil + 840_000,
            after: { holder: 'old-run', runUntilMs: runUntil },
          },
        ],
      },
    ]);
  });
});
