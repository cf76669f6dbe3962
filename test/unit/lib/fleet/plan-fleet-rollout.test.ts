/**
 * planFleetRollout over a simulated fleet: each member rolls as its
 * DaemonSet sync would under the decision's partition floor, instantly
 * when healthy, never when its pods of the new revision cannot become
 * available. The test drives the clock and checks the invariants the
 * planner promises.
 */
import { describe, expect, it } from 'vitest';
import type { FleetPolicy } from '#lib/fleet/fleet-policy.js';
import {
  type FleetRolloutState,
  idleFleetRollout,
  type MemberDecision,
  type MemberObservation,
} from '#lib/fleet/fleet-rollout-state.js';
import { fleetPartitionFloor } from '#lib/fleet/member-decisions.js';
import { planFleetRollout } from '#lib/fleet/plan-fleet-rollout.js';
import { testFleetPolicy } from '../../../helpers/fleet-policies.js';

const MIN = 60_000;

/** Four clusters in three waves, 10 nodes each; bakes of 5 and 10 minutes. */
const policyOf = (spec: Record<string, unknown> = {}): FleetPolicy =>
  testFleetPolicy('agent', {
    clusters: { selector: { matchLabels: { fleet: 'yes' } } },
    waves: [
      {
        name: 'canary',
        clusters: { ids: ['c1'] },
        nodeSteps: [
          { partition: '50%', bake: '5m' },
          { partition: 0, bake: '5m' },
        ],
        bake: '10m',
      },
      {
        name: 'early',
        clusters: { ids: ['c2'] },
        nodeSteps: [{ partition: 0, bake: '5m' }],
      },
      {
        name: 'rest',
        clusters: { selector: { matchLabels: { fleet: 'yes' } } },
        maxConcurrentClusters: 1,
      },
    ],
    health: { progressDeadline: '15m' },
    ...spec,
  });

interface SimCluster {
  id: string;
  revision: string;
  /** Nodes whose pod breaks the health gates (the member reports them). */
  failedNodes?: number;
  /** Revision each node runs, by index. */
  nodes: string[];
  healthyRevisions: Set<string>;
  reachable: boolean;
}

/** A fleet whose members roll under the planner's decisions. */
class FleetSim {
  nowMs = 1_000_000;
  state: FleetRolloutState = idleFleetRollout();
  decisions: Record<string, MemberDecision> = {};
  notes: string[] = [];
  readonly clusters = new Map<string, SimCluster>();
  /** Every (time, cluster, decision) the planner gave with a target. */
  readonly released: {
    atMs: number;
    id: string;
    partition: number | string;
  }[] = [];

  constructor(
    readonly policy: FleetPolicy,
    ids: string[]
  ) {
    for (const id of ids) this.add(id, 'r1');
  }

  add(id: string, revision: string): void {
    this.clusters.set(id, {
      id,
      revision,
      nodes: Array(10).fill(revision),
      healthyRevisions: new Set(['r1', 'r2', 'r3']),
      reachable: true,
    });
  }

  /** GitOps applies a new template to every cluster. */
  apply(revision: string): void {
    for (const c of this.clusters.values()) c.revision = revision;
  }

  #observe(): Map<string, MemberObservation> {
    const out = new Map<string, MemberObservation>();
    for (const c of this.clusters.values()) {
      if (!c.reachable) continue;
      const healthy = c.healthyRevisions.has(c.revision);
      out.set(c.id, {
        observedAtMs: this.nowMs,
        reachable: true,
        revision: c.revision,
        desired: 10,
        updatedAvailable: healthy
          ? c.nodes.filter((n) => n === c.revision).length
          : 0,
        failedNodes: c.failedNodes ?? 0,
        excludedNodes: 0,
      });
    }
    return out;
  }

  /** One fleet sync, then each member's sync under its decision. */
  step(): void {
    const plan = planFleetRollout({
      policy: this.policy,
      members: [...this.clusters.keys()].map((id) => ({
        id,
        labels: { fleet: 'yes' },
      })),
      observations: this.#observe(),
      state: this.state,
      nowMs: this.nowMs,
      unknownAfterMs: 2 * MIN,
    });
    this.state = plan.state;
    this.decisions = plan.decisions;
    this.notes.push(...plan.notes);
    for (const c of this.clusters.values()) {
      const d = plan.decisions[c.id];
      const floor = fleetPartitionFloor(d, c.revision, 10);
      if (d?.target !== undefined && floor < 10) {
        this.released.push({
          atMs: this.nowMs,
          id: c.id,
          partition: d.partition,
        });
      }
      // The member's sync: all but `floor` nodes (highest indexes first) move.
      if (!c.reachable) continue;
      c.nodes = c.nodes.map((rev, i) => (i >= floor ? c.revision : rev));
    }
  }

  /** Runs fleet syncs every `everyMs` for `totalMs`. */
  run(totalMs: number, everyMs = 30_000): void {
    for (let t = 0; t < totalMs; t += everyMs) {
      this.step();
      this.nowMs += everyMs;
    }
  }

  firstRelease(id: string): number | undefined {
    return this.released.find((r) => r.id === id)?.atMs;
  }

  /** Nodes of `id` running `revision`. */
  on(id: string, revision: string): number {
    return (
      this.clusters.get(id)?.nodes.filter((n) => n === revision).length ?? 0
    );
  }
}

describe('planFleetRollout', () => {
  it('rolls a good image wave by wave, each wave after the one before it baked', () => {
    // Prepare
    const sim = new FleetSim(policyOf(), ['c1', 'c2', 'c3', 'c4']);
    sim.step();
    // Act
    sim.apply('r2');
    sim.run(120 * MIN);
    // Assess: every cluster rolled, in wave order, bakes held.
    expect(sim.state.phase).toBe('Done');
    for (const id of ['c1', 'c2', 'c3', 'c4'])
      expect(sim.on(id, 'r2')).toBe(10);
    const c1 = sim.firstRelease('c1') ?? 0;
    const c2 = sim.firstRelease('c2') ?? 0;
    const c3 = sim.firstRelease('c3') ?? 0;
    const c4 = sim.firstRelease('c4') ?? 0;
    // Canary: two steps of 5 min, then the wave's 10-min bake.
    expect(c2 - c1).toBeGreaterThanOrEqual(20 * MIN);
    // Early: one step of 5 min, no wave bake.
    expect(c3 - c2).toBeGreaterThanOrEqual(5 * MIN);
    // Rest: one cluster at a time.
    expect(c4).toBeGreaterThan(c3);
    expect(sim.state.stable).toEqual({
      c1: 'r2',
      c2: 'r2',
      c3: 'r2',
      c4: 'r2',
    });
    expect(sim.notes).toContain('rollout done');
  });

  it('holds the canary at its first step’s partition during the bake', () => {
    // Prepare
    const sim = new FleetSim(policyOf(), ['c1', 'c2']);
    sim.step();
    sim.apply('r2');
    // Act: two syncs, one minute apart.
    sim.step();
    sim.nowMs += MIN;
    sim.step();
    // Assess
    expect(sim.on('c1', 'r2')).toBe(5);
    expect(sim.on('c2', 'r2')).toBe(0);
    expect(sim.state.clusters.c1).toMatchObject({ phase: 'Baking', step: 0 });
    expect(sim.decisions.c2).toEqual({
      stable: 'r1',
      target: 'r2',
      partition: '100%',
    });
  });

  it('halts a bad image in the first wave: no pod of it in a later wave', () => {
    // Prepare
    const sim = new FleetSim(policyOf(), ['c1', 'c2', 'c3', 'c4']);
    sim.step();
    for (const c of sim.clusters.values()) c.healthyRevisions.delete('bad');
    // Act
    sim.apply('bad');
    sim.run(60 * MIN);
    // Assess
    expect(sim.state.phase).toBe('Halted');
    expect(sim.state.clusters.c1).toMatchObject({
      phase: 'Failed',
      reason: expect.stringContaining('progress deadline 15m passed'),
    });
    for (const id of ['c2', 'c3', 'c4']) expect(sim.on(id, 'bad')).toBe(0);
    expect(
      sim.notes.some((n) =>
        n.startsWith('halted: 1 clusters failed (budget 0)')
      )
    ).toBe(true);
  });

  it('fails a done cluster whose pods break during its wave’s bake, before the next wave', () => {
    // Prepare
    const sim = new FleetSim(policyOf(), ['c1', 'c2']);
    sim.step();
    sim.apply('r2');
    sim.run(12 * MIN);
    const done = sim.state.clusters.c1?.phase;
    // Act: the canary's pods crash during the canary wave's 10-m bake.
    (sim.clusters.get('c1') as SimCluster).failedNodes = 1;
    sim.run(20 * MIN);
    // Assess
    expect(done).toBe('Done');
    expect(sim.state.clusters.c1?.phase).toBe('Failed');
    expect(sim.state.phase).toBe('Halted');
    expect(sim.firstRelease('c2')).toBeUndefined();
  });

  it('bakes a wave anew when a done cluster’s pods stop being available during the bake', () => {
    // Prepare
    const sim = new FleetSim(policyOf(), ['c1', 'c2']);
    sim.step();
    sim.apply('r2');
    sim.run(12 * MIN);
    const c1 = sim.clusters.get('c1') as SimCluster;
    // Act: unavailable for 5 minutes (under the 15-m deadline), then back.
    c1.healthyRevisions.delete('r2');
    sim.run(5 * MIN);
    const during = sim.state.clusters.c1?.phase;
    c1.healthyRevisions.add('r2');
    const back = sim.nowMs;
    sim.run(40 * MIN);
    // Assess
    expect(during).toBe('Progressing');
    expect(sim.firstRelease('c2')).toBeGreaterThanOrEqual(back + 10 * MIN);
    expect(sim.on('c2', 'r2')).toBe(10);
  });

  it('fails a cluster at once when more nodes break the health gates than its budget', () => {
    // Prepare
    const sim = new FleetSim(policyOf(), ['c1', 'c2']);
    sim.step();
    sim.apply('r2');
    // Act: c1 reports a crash-looping node on the new revision.
    const plan = planFleetRollout({
      policy: sim.policy,
      members: ['c1', 'c2'].map((id) => ({ id, labels: { fleet: 'yes' } })),
      observations: new Map([
        [
          'c1',
          {
            observedAtMs: sim.nowMs,
            reachable: true,
            revision: 'r2',
            desired: 10,
            updatedAvailable: 4,
            failedNodes: 1,
            excludedNodes: 2,
          },
        ],
        [
          'c2',
          {
            observedAtMs: sim.nowMs,
            reachable: true,
            revision: 'r2',
            desired: 10,
            updatedAvailable: 0,
            failedNodes: 0,
            excludedNodes: 0,
          },
        ],
      ]),
      state: { ...sim.state, phase: 'Idle' },
      nowMs: sim.nowMs,
      unknownAfterMs: 2 * MIN,
    });
    // Assess
    expect(plan.state.clusters.c1).toMatchObject({
      phase: 'Failed',
      reason: '1 nodes failed the health gates (budget 0)',
    });
    expect(plan.state.phase).toBe('Halted');
  });

  it('holds its wave while a cluster is Unknown (onUnknown: hold)', () => {
    // Prepare
    const sim = new FleetSim(policyOf(), ['c1', 'c2', 'c3']);
    sim.step();
    const c2 = sim.clusters.get('c2') as SimCluster;
    // Act
    sim.apply('r2');
    sim.run(25 * MIN);
    c2.reachable = false;
    sim.run(60 * MIN);
    // Assess
    expect(sim.state.clusters.c2?.phase).toBe('Unknown');
    expect(sim.firstRelease('c3')).toBeUndefined();
    expect(sim.state.phase).toBe('Progressing');
  });

  it('counts an Unknown cluster against the budget with onUnknown: countAsFailed', () => {
    // Prepare
    const sim = new FleetSim(
      policyOf({
        onUnknown: 'countAsFailed',
        failureBudget: { maxFailedClusters: 1 },
      }),
      ['c1', 'c2', 'c3']
    );
    sim.step();
    const c2 = sim.clusters.get('c2') as SimCluster;
    // Act
    sim.apply('r2');
    sim.run(21 * MIN);
    c2.reachable = false;
    sim.run(60 * MIN);
    // Assess: the wave went on without c2, which never counted as done.
    expect(sim.state.clusters.c2?.phase).toBe('Unknown');
    expect(sim.on('c3', 'r2')).toBe(10);
    expect(sim.state.target.c2).toBe('r2');
  });

  it('waits for approval before a manual wave', () => {
    // Prepare
    const policy = policyOf();
    (policy.waves[1] as { manualApproval: boolean }).manualApproval = true;
    const sim = new FleetSim(policy, ['c1', 'c2']);
    sim.step();
    // Act
    sim.apply('r2');
    sim.run(40 * MIN);
    const waited = sim.firstRelease('c2');
    sim.state.approvedWaves.push('early');
    sim.run(20 * MIN);
    // Assess
    expect(waited).toBeUndefined();
    expect(sim.notes).toContain('wave early waits for approval');
    expect(sim.on('c2', 'r2')).toBe(10);
  });

  it('holds every cluster where it stands once aborted', () => {
    // Prepare
    const sim = new FleetSim(policyOf(), ['c1', 'c2']);
    sim.step();
    sim.apply('r2');
    sim.run(MIN);
    const c1 = sim.on('c1', 'r2');
    // Act
    sim.state.aborted = true;
    sim.run(60 * MIN);
    // Assess
    expect(sim.state.phase).toBe('Aborted');
    expect(sim.notes.filter((n) => n.startsWith('aborted'))).toHaveLength(1);
    expect(sim.on('c1', 'r2')).toBe(c1);
    expect(sim.firstRelease('c2')).toBeUndefined();
  });

  it('starts over when a newer template supersedes the rollout', () => {
    // Prepare
    const sim = new FleetSim(policyOf(), ['c1', 'c2']);
    sim.step();
    sim.apply('r2');
    sim.run(2 * MIN);
    // Act
    sim.apply('r3');
    sim.step();
    // Assess
    expect(
      sim.notes.some((n) =>
        n.startsWith('superseded: c1 moved from revision r2 to r3')
      )
    ).toBe(true);
    expect(sim.state.target).toEqual({ c1: 'r3', c2: 'r3' });
    expect(sim.state.supersededAtMs).toBe(sim.nowMs);
    expect(sim.decisions.c2?.partition).toBe('100%');
  });

  it('keeps a cluster registered mid-rollout on the stable revision until its wave', () => {
    // Prepare
    const sim = new FleetSim(policyOf(), ['c1', 'c2', 'c3']);
    sim.step();
    sim.apply('r2');
    sim.run(5 * MIN);
    // Act: c9 joins the rest wave with the new template already applied.
    sim.add('c9', 'r2');
    sim.step();
    // Assess
    expect(sim.state.stable.c9).toBe('r1');
    expect(sim.decisions.c9).toEqual({
      stable: 'r1',
      target: 'r2',
      partition: '100%',
    });
  });

  it('never has more clusters of a wave in progress than maxConcurrentClusters', () => {
    // Prepare
    const sim = new FleetSim(policyOf(), ['c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
    sim.step();
    // Act / Assess
    sim.apply('r2');
    for (let i = 0; i < 200; i++) {
      sim.step();
      sim.nowMs += 30_000;
      const rest = ['c3', 'c4', 'c5', 'c6'].filter((c) =>
        ['Progressing', 'Baking', 'Unknown'].includes(
          sim.state.clusters[c]?.phase ?? ''
        )
      );
      expect(rest.length).toBeLessThanOrEqual(1);
    }
    expect(sim.state.phase).toBe('Done');
  });

  it('asks to look again when the next bake ends', () => {
    // Prepare
    const sim = new FleetSim(policyOf(), ['c1']);
    sim.step();
    sim.apply('r2');
    sim.step();
    sim.step();
    sim.nowMs += MIN;
    // Act
    const plan = planFleetRollout({
      policy: sim.policy,
      members: [{ id: 'c1', labels: { fleet: 'yes' } }],
      observations: new Map([
        [
          'c1',
          {
            observedAtMs: sim.nowMs,
            reachable: true,
            revision: 'r2',
            desired: 10,
            updatedAvailable: 5,
            failedNodes: 0,
            excludedNodes: 0,
          },
        ],
      ]),
      state: sim.state,
      nowMs: sim.nowMs,
      unknownAfterMs: 10 * MIN,
    });
    // Assess: the first step became available a minute ago; 4 minutes left.
    expect(plan.requeueAfterMs).toBe(4 * MIN);
  });
});

describe('fleetPartitionFloor', () => {
  it('holds nothing on the stable revision, the partition on the target, all else entirely', () => {
    const d: MemberDecision = { stable: 's', target: 't', partition: '30%' };
    expect(fleetPartitionFloor(d, 's', 10)).toBe(0);
    expect(fleetPartitionFloor(d, 't', 10)).toBe(3);
    expect(fleetPartitionFloor(d, 'other', 10)).toBe(10);
    expect(fleetPartitionFloor(undefined, 'x', 10)).toBe(0);
    expect(
      fleetPartitionFloor({ target: 't', partition: '100%' }, 't', 7)
    ).toBe(7);
  });
});
