/**
 * The dispatcher's planning: economy clusters every tick, watch clusters
 * succeeded ahead of their end, fresh watch runs staggered by id, claims
 * honoured, and turns packed by count and size.
 */
import { describe, expect, it } from 'vitest';
import {
  type BridgePlanInput,
  bridgeRetryAtMs,
  ECONOMY_SPREAD_TICKS,
  firstTurnMs,
  type PlannedRun,
  packBridgeTurns,
  planBridgeRuns,
} from '#lib/bridge/plan-bridge-turns.js';
import type { LeaseView } from '#lib/ports/index.js';

const NOW = 1_800_000_000_000;
const WATCH_MS = 840_000;

const input = (
  records: BridgePlanInput['records'],
  leases: Record<string, LeaseView> = {}
): BridgePlanInput => ({
  records,
  leases: new Map(Object.entries(leases)),
  nowMs: NOW,
  watchMs: WATCH_MS,
  economyMs: 20_000,
  handoverLeadMs: 90_000,
  claimStaleMs: 210_000,
  tickMs: 60_000,
});

const live = (over: Partial<LeaseView> = {}): LeaseView => ({
  holder: 'h1',
  leaseUntilMs: NOW + 50_000,
  runUntilMs: NOW + 600_000,
  ...over,
});

describe('planBridgeRuns', () => {
  const economyFleet = (n: number): BridgePlanInput['records'] =>
    Array.from({ length: n }, (_, i) => ({
      id: `eco-${i}`,
      bridgeMode: 'economy' as const,
    }));

  it('launches economy runs at once while they fit the economy burst', () => {
    // Act
    const runs = planBridgeRuns({
      ...input([...economyFleet(50), { id: 'w', bridgeMode: 'watch' }]),
      economyBurst: 50,
    });
    // Assess
    expect(runs).toHaveLength(51);
    expect(runs.filter((r) => r.launchDelayMs !== undefined)).toEqual([]);
    expect(
      runs.filter((r) => r.mode === 'economy').map((r) => r.stopAtMs)
    ).toEqual(Array(50).fill(NOW + 20_000));
  });

  it('spreads economy runs beyond the burst over a third of the tick, each at a point fixed by its id, with its whole drain', () => {
    // Prepare
    const fleet: BridgePlanInput['records'] = [
      ...economyFleet(600),
      { id: 'w', bridgeMode: 'watch' },
    ];
    const spreadMs = 60_000 * ECONOMY_SPREAD_TICKS;
    // Act
    const runs = planBridgeRuns({ ...input(fleet), economyBurst: 50 });
    const later = planBridgeRuns({
      ...input(fleet),
      nowMs: NOW + 60_000,
      economyBurst: 50,
    });
    // Assess
    const economy = runs.filter((r) => r.mode === 'economy');
    const delays = economy.map((r) => r.launchDelayMs ?? -1);
    const perSecond = new Map<number, number>();
    for (const d of delays) {
      const second = Math.floor(d / 1_000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...delays)).toBeLessThanOrEqual(spreadMs);
    // 600 runs over 20 s average 30 a second; no second takes the burst.
    expect(perSecond.size).toBeGreaterThanOrEqual(20);
    expect(Math.max(...perSecond.values())).toBeLessThan(50);
    for (const r of economy) {
      expect(r.stopAtMs).toBe(NOW + (r.launchDelayMs ?? 0) + 20_000);
    }
    expect(later.map((r) => r.launchDelayMs)).toEqual(
      runs.map((r) => r.launchDelayMs)
    );
    expect(runs.find((r) => r.mode === 'watch')?.launchDelayMs).toBeUndefined();
  });

  it('drains an economy cluster every tick unless a run holds or is on its way', () => {
    // Act
    const runs = planBridgeRuns(
      input(
        [
          { id: 'free', bridgeMode: 'economy' },
          { id: 'held', bridgeMode: 'economy' },
          { id: 'claimed', bridgeMode: 'economy' },
          { id: 'stale-claim', bridgeMode: 'economy' },
          { id: 'released', bridgeMode: 'economy' },
        ],
        {
          held: live(),
          claimed: { leaseUntilMs: 0, claimedAtMs: NOW - 5_000 },
          'stale-claim': { leaseUntilMs: 0, claimedAtMs: NOW - 300_000 },
          released: live({ leaseUntilMs: 0 }),
        }
      )
    );
    // Assess
    expect(runs.map((r) => r.cluster)).toEqual([
      'free',
      'stale-claim',
      'released',
    ]);
    expect(runs[0]).toMatchObject({
      mode: 'economy',
      stopAtMs: NOW + 20_000,
      takeOverFrom: undefined,
    });
  });

  it('launches a watch successor once the run ends within the lead, to take over from its holder', () => {
    // Act
    const runs = planBridgeRuns(
      input(
        [
          { id: 'far', bridgeMode: 'watch' },
          { id: 'near', bridgeMode: 'watch' },
          { id: 'near-claimed', bridgeMode: 'watch' },
          { id: 'no-end', bridgeMode: 'watch' },
        ],
        {
          far: live({ runUntilMs: NOW + 91_000 }),
          near: live({ runUntilMs: NOW + 80_000, size: { nodes: 700 } }),
          'near-claimed': live({
            runUntilMs: NOW + 30_000,
            claimedAtMs: NOW - 40_000,
          }),
          'no-end': live({ runUntilMs: undefined }),
        }
      )
    );
    // Assess
    expect(runs).toEqual([
      {
        cluster: 'near',
        mode: 'watch',
        stopAtMs: NOW + 80_000 + WATCH_MS,
        after: { holder: 'h1', runUntilMs: NOW + 80_000 },
        takeOverFrom: 'h1',
        nodes: 700,
      },
    ]);
  });

  it('starts a watch cluster with no live run, its first turn shortened by its id', () => {
    // Act
    const [run] = planBridgeRuns(
      input([{ id: 'new', bridgeMode: 'watch' }], {
        new: live({ leaseUntilMs: NOW - 1, runUntilMs: NOW - 1 }),
      })
    );
    // Assess
    expect(run).toMatchObject({
      cluster: 'new',
      takeOverFrom: undefined,
      stopAtMs: NOW + firstTurnMs('new', WATCH_MS),
    });
    expect(run?.after).toBeUndefined();
  });

  it('backs a cluster whose bridge runs fail off, doubling from 10 s to 5 minutes, instead of relaunching it every tick', () => {
    // Prepare
    const failing = (count: number, agoMs: number): LeaseView => ({
      leaseUntilMs: 0,
      failures: { count, lastAtMs: NOW - agoMs },
    });
    // Act
    const runs = planBridgeRuns(
      input(
        [
          { id: 'once-9s', bridgeMode: 'economy' },
          { id: 'once-11s', bridgeMode: 'economy' },
          { id: 'thrice-39s', bridgeMode: 'watch' },
          { id: 'thrice-41s', bridgeMode: 'watch' },
          { id: 'many-299s', bridgeMode: 'watch' },
          { id: 'many-301s', bridgeMode: 'economy' },
        ],
        {
          'once-9s': failing(1, 9_000),
          'once-11s': failing(1, 11_000),
          'thrice-39s': failing(3, 39_000),
          'thrice-41s': failing(3, 41_000),
          'many-299s': failing(30, 299_000),
          'many-301s': failing(30, 301_000),
        }
      )
    );
    // Assess
    expect(runs.map((r) => r.cluster)).toEqual([
      'once-11s',
      'thrice-41s',
      'many-301s',
    ]);
    expect(bridgeRetryAtMs({ count: 2, lastAtMs: 0 }, 60_000)).toBe(20_000);
    // In ticks: a 1-s schedule backs off to 5 s at most, not 5 minutes.
    expect(bridgeRetryAtMs({ count: 30, lastAtMs: 0 }, 1_000)).toBe(5_000);
  });

  it('never makes a first turn shorter than the hand-over lead, so the next tick sees it and launches its successor', () => {
    // Prepare: a short period (a test or a custom BRIDGE_WATCH_SECONDS).
    const short = { ...input([]), watchMs: 6_000, handoverLeadMs: 6_000 };
    const ids = Array.from({ length: 50 }, (_, i) => `c-${i}`);
    // Act
    const runs = planBridgeRuns({
      ...short,
      records: ids.map((id) => ({ id, bridgeMode: 'watch' as const })),
    });
    // Assess
    expect(Math.min(...runs.map((r) => r.stopAtMs - NOW))).toBe(6_000);
    expect(ids.some((id) => firstTurnMs(id, 6_000) < 6_000)).toBe(true);
  });

  it('spreads the hand-overs of 100 clusters started together over the period', () => {
    // Act
    const ends = Array.from({ length: 100 }, (_, i) =>
      firstTurnMs(`cluster-${i}`, WATCH_MS)
    );
    // Assess: within [period/4, period], over most of it, few per second.
    expect(Math.min(...ends)).toBeGreaterThanOrEqual(WATCH_MS / 4);
    expect(Math.max(...ends)).toBeLessThanOrEqual(WATCH_MS);
    expect(Math.max(...ends) - Math.min(...ends)).toBeGreaterThan(WATCH_MS / 2);
    const perSecond = new Map<number, number>();
    for (const e of ends) {
      const s = Math.floor(e / 1_000);
      perSecond.set(s, (perSecond.get(s) ?? 0) + 1);
    }
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(3);
  });
});

describe('packBridgeTurns', () => {
  const run = (
    cluster: string,
    over: Partial<PlannedRun> = {}
  ): PlannedRun => ({
    cluster,
    mode: 'watch',
    stopAtMs: NOW + 600_000,
    takeOverFrom: undefined,
    nodes: 0,
    ...over,
  });

  it('launches every economy run alone', () => {
    // Act
    const turns = packBridgeTurns(
      [run('a', { mode: 'economy' }), run('b', { mode: 'economy' })],
      { clustersPerTurn: 10, nodesPerTurn: 5_000 }
    );
    // Assess
    expect(turns.map((t) => t.clusters.map((c) => c.cluster))).toEqual([
      ['a'],
      ['b'],
    ]);
  });

  it('packs watch runs by count and nodes; a cluster above the node limit runs alone', () => {
    // Act
    const turns = packBridgeTurns(
      [
        run('small-1', { nodes: 10 }),
        run('huge', { nodes: 6_000 }),
        run('mid-1', { nodes: 2_000 }),
        run('mid-2', { nodes: 2_000 }),
        run('small-2', { nodes: 10 }),
        run('small-3', { nodes: 10 }),
      ],
      { clustersPerTurn: 3, nodesPerTurn: 5_000 }
    );
    // Assess
    expect(turns.map((t) => t.clusters.map((c) => c.cluster))).toEqual([
      ['small-1', 'mid-1', 'mid-2'],
      ['huge'],
      ['small-2', 'small-3'],
    ]);
  });

  it('puts one cluster in each invocation when asked for full isolation', () => {
    // Act
    const turns = packBridgeTurns([run('a'), run('b'), run('c')], {
      clustersPerTurn: 1,
      nodesPerTurn: 5_000,
    });
    // Assess
    expect(turns).toHaveLength(3);
  });

  it('keeps the hand-over and the end of each run in its turn', () => {
    // Prepare
    const after = { holder: 'h1', runUntilMs: NOW + 10_000 };
    // Act
    const [turn] = packBridgeTurns(
      [run('a', { after, takeOverFrom: 'h1', stopAtMs: NOW + 850_000 })],
      { clustersPerTurn: 10, nodesPerTurn: 5_000 }
    );
    // Assess
    expect(turn).toEqual({
      mode: 'watch',
      clusters: [{ cluster: 'a', stopAtMs: NOW + 850_000, after }],
    });
  });
});
