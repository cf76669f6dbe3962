/**
 * syncFleetRollout, the fleet rollout's sync, over the memory store and a
 * simulated fleet: each member's sync holds its pods of a new revision by
 * the decision's partition floor and reports through StoreFleetMembership,
 * as the real member syncs do (sync-daemon-set-fleet.test.ts proves that
 * half on the orchestrator). The test drives the queue and the clock.
 */

import { describe, expect, it } from 'vitest';
import { MemoryFleetRolloutStore } from '#lib/adapters/memory/memory-fleet-rollout-store.js';
import { withControls } from '#lib/fleet/fleet-controls.js';
import type { FleetWave } from '#lib/fleet/fleet-policy.js';
import { fleetPartitionFloor } from '#lib/fleet/member-decisions.js';
import { fleetPolicyOf, formatFleetKey } from '#lib/keys.js';
import type { ClusterRecord } from '#lib/ports/index.js';
import {
  observationChanged,
  StoreFleetMembership,
} from '#lib/sync/fleet-membership.js';
import {
  syncFleetRollout,
  UNKNOWN_AFTER_MS,
} from '#lib/sync/sync-fleet-rollout.js';
import { FakeClock } from '../../../helpers/fakes/fake-clock.js';
import { FakeLogger } from '../../../helpers/fakes/fake-logger.js';
import { MemoryClusterRegistry } from '../../../helpers/fakes/memory-cluster-registry.js';
import { testFleetPolicy } from '../../../helpers/fleet-policies.js';

const MIN = 60_000;
const NODES = 10;

const record = (id: string, labels = { fleet: 'yes' }): ClusterRecord => ({
  id,
  endpoint: '',
  caData: '',
  auth: { type: 'kubeconfig', path: `/k/${id}` },
  ownership: 'apps/v1',
  bridgeMode: 'watch',
  labels,
});

const POLICY = testFleetPolicy('agent', {
  clusters: { selector: { matchLabels: { fleet: 'yes' } } },
  waves: [
    {
      name: 'canary',
      clusters: { ids: ['c1'] },
      nodeSteps: [{ partition: 0, bake: '5m' }],
      bake: '10m',
    },
    {
      name: 'rest',
      clusters: { selector: { matchLabels: { fleet: 'yes' } } },
    },
  ],
});

/** One simulated member: its template and how many nodes run it. */
interface SimMember {
  template: string;
  /** Nodes with an available pod, by revision. */
  pods: Record<string, number>;
  reachable: boolean;
}

/** A fleet of three clusters, its store, queue and clock. */
const newFleet = async () => {
  const clock = new FakeClock(1_000_000);
  const store = new MemoryFleetRolloutStore();
  const registry = new MemoryClusterRegistry([
    record('c1'),
    record('c2'),
    record('c3'),
  ]);
  const queued: string[] = [];
  const timers: { at: number; key: string }[] = [];
  const queue = { add: async (key: string) => void queued.push(key) };
  const membership = new StoreFleetMembership({ store, queue });
  const members = new Map<string, SimMember>(
    ['c1', 'c2', 'c3'].map((c) => [
      c,
      { template: 'A', pods: { A: NODES }, reachable: true },
    ])
  );
  const deps = { store, registry, queue, clock, logger: new FakeLogger() };
  /** What each member's sync does: roll within the floor, then report. */
  const memberSync = async (key: string) => {
    const cluster = key.split('/')[0] as string;
    const sim = members.get(cluster) as SimMember;
    if (!sim.reachable) return;
    const m = await membership.memberOf(key);
    if (m === undefined) return;
    const floor = fleetPartitionFloor(m.decision, sim.template, NODES);
    const current = sim.pods[sim.template] ?? 0;
    const next = Math.max(current, NODES - floor);
    for (const rev of Object.keys(sim.pods))
      if (rev !== sim.template) sim.pods[rev] = NODES - next;
    sim.pods[sim.template] = next;
    await membership.report(m, {
      observedAtMs: clock.now(),
      reachable: true,
      revision: sim.template,
      desired: NODES,
      updatedAvailable: next,
      failedNodes: 0,
      excludedNodes: 0,
    });
  };
  /** Runs queued keys until none is left, then the due timers. */
  const drain = async () => {
    for (let i = 0; i < 200 && queued.length > 0; i++) {
      const key = queued.shift() as string;
      const name = fleetPolicyOf(key);
      if (name === undefined) {
        await memberSync(key);
        continue;
      }
      const result = await syncFleetRollout(name, deps);
      if (result.requeueAfterMs !== undefined) {
        timers.push({ at: clock.now() + result.requeueAfterMs, key });
      }
    }
  };
  /** Advances the clock by `ms`, firing timers as they fall due. */
  const advance = async (ms: number) => {
    const end = clock.now() + ms;
    for (;;) {
      await drain();
      timers.sort((a, b) => a.at - b.at);
      const due = timers[0];
      if (due === undefined || due.at > end) break;
      timers.shift();
      clock.set(Math.max(clock.now(), due.at));
      queued.push(due.key);
    }
    clock.set(end);
    await drain();
  };
  await store.applyPolicy(POLICY, 'source', clock.now());
  queued.push(formatFleetKey('agent'));
  return { clock, store, registry, members, queued, advance, deps };
};

const phases = async (store: MemoryFleetRolloutStore) => {
  const r = await store.get('agent');
  return Object.fromEntries(
    ['c1', 'c2', 'c3'].map((c) => [c, r?.state.clusters[c]?.phase ?? 'Pending'])
  );
};

describe('syncFleetRollout', () => {
  it('pins every member on its current revision, holding nothing', async () => {
    // Prepare
    const { store, advance } = await newFleet();
    // Act
    await advance(0);
    // Assess
    const r = await store.get('agent');
    expect(r?.state.phase).toBe('Idle');
    expect(r?.state.stable).toEqual({ c1: 'A', c2: 'A', c3: 'A' });
    const members = await store.getMembers(
      ['c1', 'c2', 'c3'].map((c) => `${c}/kube-system/agent`)
    );
    expect([...members.values()].map((m) => m.decision)).toEqual([
      { stable: 'A', partition: 0 },
      { stable: 'A', partition: 0 },
      { stable: 'A', partition: 0 },
    ]);
  });

  it('rolls a template applied everywhere wave by wave, each after the bake before it', async () => {
    // Prepare
    const { store, members, queued, advance } = await newFleet();
    await advance(0);
    // Act: GitOps applies B to every cluster at once.
    for (const [c, sim] of members) {
      sim.template = 'B';
      queued.push(`${c}/kube-system/agent`);
    }
    await advance(0);
    const started = { ...(await phases(store)) };
    const pods = [...members.values()].map((m) => m.pods.B);
    await advance(5 * MIN);
    const afterStepBake = await phases(store);
    const c2Before = members.get('c2')?.pods.B;
    await advance(10 * MIN);
    const afterWaveBake = await phases(store);
    await advance(30 * MIN);
    // Assess
    expect(started).toEqual({ c1: 'Baking', c2: 'Pending', c3: 'Pending' });
    expect(pods).toEqual([NODES, 0, 0]);
    expect(afterStepBake.c1).toBe('Done');
    expect(c2Before).toBe(0);
    expect(afterWaveBake.c2).not.toBe('Pending');
    const r = await store.get('agent');
    expect(r?.state.phase).toBe('Done');
    expect(r?.state.stable).toEqual({ c1: 'B', c2: 'B', c3: 'B' });
    expect([...members.values()].map((m) => m.pods.B)).toEqual([
      NODES,
      NODES,
      NODES,
    ]);
    expect(r?.history.map((h) => h.note)).toContain('rollout done');
  });

  it('asks every member to report when a rollout starts, however fresh its last report', async () => {
    // Prepare
    const { store, members, queued, advance, clock } = await newFleet();
    await advance(0);
    clock.step(10_000);
    // Act: one cluster shows a new template.
    (members.get('c1') as SimMember).template = 'B';
    queued.push('c1/kube-system/agent');
    await advance(0);
    // Assess
    const c2 = await store.getMember('c2/kube-system/agent');
    expect(c2?.observation?.observedAtMs).toBe(clock.now());
  });

  it('writes nothing new when a key is delivered twice', async () => {
    // Prepare
    const { store, advance, deps } = await newFleet();
    await advance(0);
    const before = await store.get('agent');
    // Act
    await syncFleetRollout('agent', deps);
    await syncFleetRollout('agent', deps);
    // Assess
    expect(await store.get('agent')).toEqual(before);
  });

  it('starts no wave while paused, and counts only approvals given after the start', async () => {
    // Prepare
    const { store, members, queued, advance, clock } = await newFleet();
    await advance(0);
    await store.setControls('agent', { paused: true }, 'paused', clock.now());
    // Act
    for (const [c, sim] of members) {
      sim.template = 'B';
      queued.push(`${c}/kube-system/agent`);
    }
    await advance(20 * MIN);
    const paused = await phases(store);
    await store.setControls('agent', { paused: false }, 'resumed', clock.now());
    queued.push(formatFleetKey('agent'));
    await advance(0);
    // Assess
    expect(paused).toEqual({ c1: 'Pending', c2: 'Pending', c3: 'Pending' });
    expect(members.get('c1')?.pods.B).toBe(NODES);
    const state = (await store.get('agent'))?.state;
    expect(
      withControls(state as NonNullable<typeof state>, {
        paused: false,
        approvedAtMs: { rest: 0 },
        abortedAtMs: 0,
      })
    ).toMatchObject({ approvedWaves: [], aborted: false });
  });

  it('holds the next waves while a silent member is Unknown, and asks the others to report again', async () => {
    // Prepare
    const { store, members, queued, advance } = await newFleet();
    await advance(0);
    const c1 = members.get('c1') as SimMember;
    c1.reachable = false;
    for (const [c, sim] of members) {
      sim.template = 'B';
      queued.push(`${c}/kube-system/agent`);
    }
    // Act
    await advance(UNKNOWN_AFTER_MS + 30 * MIN);
    // Assess
    expect(await phases(store)).toEqual({
      c1: 'Unknown',
      c2: 'Pending',
      c3: 'Pending',
    });
    expect([...members.values()].map((m) => m.pods.B ?? 0)).toEqual([0, 0, 0]);
    const others = await store.getMembers(['c2/kube-system/agent']);
    const seen =
      others.get('c2/kube-system/agent')?.observation?.observedAtMs ?? 0;
    expect(seen).toBeGreaterThan(1_000_000 + UNKNOWN_AFTER_MS / 2);
  });

  it('releases a cluster relabelled out of the policy', async () => {
    // Prepare
    const { store, registry, queued, advance } = await newFleet();
    await advance(0);
    registry.put(record('c3', { fleet: 'no' }));
    // Act
    queued.push(formatFleetKey('agent'));
    await advance(0);
    // Assess
    expect((await store.getMembers(['c3/kube-system/agent'])).size).toBe(0);
    expect((await store.get('agent'))?.state.stable).toEqual({
      c1: 'A',
      c2: 'A',
    });
  });

  it('starts a manual wave only once approved after the rollout started', async () => {
    // Prepare
    const { store, members, queued, advance, clock } = await newFleet();
    const manual = structuredClone(POLICY);
    (manual.waves[1] as { manualApproval: boolean }).manualApproval = true;
    await store.applyPolicy(manual, 'source', clock.now());
    await advance(0);
    for (const [c, sim] of members) {
      sim.template = 'B';
      queued.push(`${c}/kube-system/agent`);
    }
    // Act
    await advance(30 * MIN);
    const waiting = await phases(store);
    await store.setControls(
      'agent',
      { approvedAtMs: { rest: clock.now() } },
      'approved rest',
      clock.now()
    );
    queued.push(formatFleetKey('agent'));
    await advance(30 * MIN);
    // Assess
    expect(waiting).toEqual({ c1: 'Done', c2: 'Pending', c3: 'Pending' });
    expect((await store.get('agent'))?.state.phase).toBe('Done');
  });

  it('holds every wave where it stands once aborted after the start', async () => {
    // Prepare
    const { store, members, queued, advance, clock } = await newFleet();
    await advance(0);
    for (const [c, sim] of members) {
      sim.template = 'B';
      queued.push(`${c}/kube-system/agent`);
    }
    await advance(0);
    // Act
    await store.setControls(
      'agent',
      { abortedAtMs: clock.now() },
      'aborted',
      clock.now()
    );
    queued.push(formatFleetKey('agent'));
    await advance(60 * MIN);
    // Assess
    expect((await store.get('agent'))?.state.phase).toBe('Aborted');
    expect([...members.values()].map((m) => m.pods.B ?? 0)).toEqual([
      NODES,
      0,
      0,
    ]);
  });

  it('rewrites the members’ health gates when the policy changes them', async () => {
    // Prepare
    const { store, queued, advance, clock } = await newFleet();
    await advance(0);
    const stricter = {
      ...POLICY,
      health: { ...POLICY.health, maxRestartsPerPod: 1 },
    };
    // Act
    await store.applyPolicy(stricter, 'source', clock.now());
    queued.push(formatFleetKey('agent'));
    await advance(0);
    // Assess
    const m = await store.getMember('c2/kube-system/agent');
    expect(m?.health.maxRestartsPerPod).toBe(1);
  });

  it('leaves a DaemonSet another policy covers to that policy', async () => {
    // Prepare
    const { store, queued, advance, clock } = await newFleet();
    await advance(0);
    // Act
    await store.applyPolicy(
      { ...POLICY, name: 'second' },
      'source',
      clock.now()
    );
    queued.push(formatFleetKey('second'));
    await advance(0);
    // Assess
    expect((await store.get('second'))?.state.stable).toEqual({});
    expect((await store.getMember('c1/kube-system/agent'))?.policy).toBe(
      'agent'
    );
  });

  it('releases a cluster removed from the registry', async () => {
    // Prepare
    const { store, registry, queued, advance } = await newFleet();
    await advance(0);
    registry.remove('c2');
    // Act
    queued.push(formatFleetKey('agent'));
    await advance(0);
    // Assess
    expect(await store.getMember('c2/kube-system/agent')).toBeUndefined();
    expect(Object.keys((await store.get('agent'))?.state.stable ?? {})).toEqual(
      ['c1', 'c3']
    );
  });

  it('covers only the clusters whose ownership runs the policy’s kind', async () => {
    // Prepare
    const { store, registry, members, queued, advance, clock } =
      await newFleet();
    members.set('c4', { template: 'A', pods: { A: NODES }, reachable: true });
    const { labels: _, ...unlabelled } = record('c4');
    registry.put({ ...unlabelled, ownership: 'apps.dsr.dev/v1beta1' });
    const advanced = {
      ...POLICY,
      name: 'advanced',
      target: { ...POLICY.target, kind: 'AdvancedDaemonSet' as const },
      clusters: { ids: ['c1', 'c4'] },
      waves: [
        { ...(POLICY.waves[0] as FleetWave), clusters: { ids: ['c1', 'c4'] } },
      ],
    };
    // Act
    await store.applyPolicy(advanced, 'source', clock.now());
    queued.push(formatFleetKey('advanced'));
    await advance(0);
    // Assess
    expect(await store.getMember('c4/kube-system/agent')).toMatchObject({
      policy: 'advanced',
    });
    expect((await store.getMember('c1/kube-system/agent'))?.policy).toBe(
      'agent'
    );
  });

  it('does nothing for a policy that no longer exists', async () => {
    // Prepare
    const { store, deps } = await newFleet();
    await store.deletePolicy('agent');
    // Act / Assess
    expect(await syncFleetRollout('agent', deps)).toEqual({});
  });
});

describe('observationChanged', () => {
  it('ignores the timestamp alone', () => {
    const o = {
      observedAtMs: 1,
      reachable: true,
      revision: 'A',
      desired: 1,
      updatedAvailable: 1,
      failedNodes: 0,
      excludedNodes: 0,
    };
    expect(observationChanged(o, { ...o, observedAtMs: 2 })).toBe(false);
    expect(observationChanged(undefined, o)).toBe(true);
    for (const k of [
      'reachable',
      'revision',
      'desired',
      'updatedAvailable',
      'failedNodes',
      'excludedNodes',
    ] as const) {
      const changed = {
        ...o,
        [k]: k === 'reachable' ? false : k === 'revision' ? 'B' : 7,
      };
      expect(observationChanged(o, changed)).toBe(true);
    }
  });
});

describe('StoreFleetMembership.reportUnreachable', () => {
  it('marks the last report unreachable and wakes the rollout; a key no rollout covers stays absent', async () => {
    // Prepare
    const { store, queued, advance, clock } = await newFleet();
    await advance(0);
    const membership = new StoreFleetMembership({
      store,
      queue: { add: async (key: string) => void queued.push(key) },
    });
    // Act
    await membership.reportUnreachable('c1/kube-system/agent', clock.now());
    await membership.reportUnreachable('c9/kube-system/agent', clock.now());
    // Assess
    expect(
      (await store.getMember('c1/kube-system/agent'))?.observation?.reachable
    ).toBe(false);
    expect(await store.getMember('c9/kube-system/agent')).toBeUndefined();
    expect(queued).toEqual([formatFleetKey('agent')]);
  });
});
