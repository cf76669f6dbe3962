/**
 * A fleet rollout end to end on four real control planes (one etcd, four
 * API servers, KWOK nodes) under one stack: a new image applied to every
 * cluster at once rolls wave by wave. No cluster of a wave gets a pod of
 * the new image before the wave before it is done and baked, and every
 * cluster ends on it. The policy goes in as `dsr fleet apply` stores it;
 * the dispatcher's tick wakes it, as in a deployment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '#lib/adapters/system-clock.js';
import type { ControlPlane } from '#lib/local-cluster/control-plane.js';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import { isConverged, setAgentImage } from './cluster-state.js';
import {
  BAKE_MS,
  EVERY_NODE,
  FleetBed,
  type Member,
  NODES,
  pause,
  podTimesOf,
} from './fleet-bed.js';
import { eventually } from './stack.js';

describe('serverless runtime: fleet rollout across four clusters', () => {
  let bed: FleetBed;
  reportLogOnFailure(() => bed?.s?.stack?.logger);

  beforeAll(async () => {
    bed = await FleetBed.start('sls-fleet');
  }, 300_000);

  afterAll(async () => {
    await bed?.close();
  });

  const podTimes = async (m: Member, image: string) =>
    podTimesOf(await bed.pods(m), image);

  it('rolls a template applied everywhere wave by wave, each after the bake before it', async () => {
    // Prepare
    await bed.converged('agent:1');
    const [c0, c1, c2, c3] = bed.members.map((m) => m.id) as [
      string,
      string,
      string,
      string,
    ];
    const policyFile = await bed.writePolicy();
    const applied = await bed.fleet(['apply', '-f', policyFile]);
    expect(applied).toMatchObject({ exitCode: 0, stderr: '' });
    expect(applied.stdout).toContain('fleetrolloutpolicy/agent created');
    await eventually(
      'every member pinned',
      async () =>
        Object.keys((await bed.store.get('agent'))?.state.stable ?? {})
          .length === 4,
      60_000,
      200
    );
    // Act: GitOps applies agent:2 to every cluster at once.
    const before = { ...bed.s.stack.metrics };
    const startedAt = systemClock.now();
    for (const m of bed.members)
      await setAgentImage(m.http, bed.s.ns, 'agent:2');
    const firstNew = new Map<string, number>();
    const done = new Map<string, number>();
    await eventually(
      'every cluster on agent:2',
      async () => {
        const now = systemClock.now();
        for (const m of bed.members) {
          if (done.has(m.id)) continue;
          const pods = await bed.pods(m);
          const fresh = pods.filter(
            (p) => p.spec?.containers[0]?.image === 'agent:2'
          );
          if (fresh.length > 0 && !firstNew.has(m.id)) firstNew.set(m.id, now);
          if (await isConverged(m.http, bed.s.ns, m.nodes, 'agent:2')) {
            done.set(m.id, now);
          }
        }
        return done.size === bed.members.length;
      },
      240_000,
      100
    );
    // Assess: by the test's clock, and by the API servers' timestamps
    // (whole seconds: a second's slack).
    const at = (map: Map<string, number>, id: string) => map.get(id) ?? 0;
    expect(at(firstNew, c1)).toBeGreaterThanOrEqual(at(done, c0) + BAKE_MS / 2);
    for (const c of [c2, c3]) {
      expect(at(firstNew, c)).toBeGreaterThanOrEqual(
        at(done, c1) + BAKE_MS / 2
      );
    }
    const [t0, t1, t2, t3] = await Promise.all(
      bed.members.map((m) => podTimes(m, 'agent:2'))
    );
    expect(t1?.firstCreatedMs).toBeGreaterThanOrEqual(
      (t0?.lastReadyMs ?? 0) + BAKE_MS - 1_000
    );
    for (const t of [t2, t3]) {
      expect(t?.firstCreatedMs).toBeGreaterThanOrEqual(
        (t1?.lastReadyMs ?? 0) + BAKE_MS - 1_000
      );
    }
    await eventually(
      'the rollout done',
      async () => (await bed.store.get('agent'))?.state.phase === 'Done',
      60_000,
      200
    );
    const record = await bed.store.get('agent');
    expect(Object.values(record?.state.stable ?? {})).toHaveLength(4);
    expect(new Set(Object.values(record?.state.stable ?? {})).size).toBe(1);
    expect(record?.history.map((h) => h.note)).toContain('rollout done');
    const status = await bed.fleet(['status', 'agent']);
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toMatch(/Done/);
    console.info(
      `$ npx dsr fleet status agent --table it-state\n${status.stdout}`
    );
    const m = bed.s.stack.metrics;
    console.info(
      `rollout of 4 clusters in 3 waves: ${systemClock.now() - startedAt} ms; ` +
        `${m.fleetSyncs - before.fleetSyncs} fleet syncs, ` +
        `${m.syncs - before.syncs} syncs in all, ` +
        `${m.deletes - before.deletes} pods deleted, ${m.creates - before.creates} created`
    );
  }, 400_000);

  it.each([
    [
      'its pods report CrashLoopBackOff',
      'agent:crash',
      'CrashLoopBackOff',
      'failed the health gates',
    ],
    [
      'its pods are never Ready',
      'agent:stuck',
      'ContainerCreating',
      'progress deadline 10s passed',
    ],
  ])(
    'halts a bad image in the first wave when %s: no pod of it in a later wave',
    async (_, image, reason, why) => {
      // Prepare
      const [canary, ...later] = bed.members as [Member, ...Member[]];
      const before = (await bed.store.get('agent'))?.state.startedAtMs ?? 0;
      // Act: GitOps applies the bad image everywhere; the canary's kubelet
      // (the test) reports its pods broken.
      for (const m of bed.members) await setAgentImage(m.http, bed.s.ns, image);
      let laterBad = 0;
      await eventually(
        'the rollout halted',
        async () => {
          await bed.breakPods(canary, image, reason);
          for (const m of later) {
            laterBad += (await bed.pods(m)).filter(
              (p) => p.spec?.containers[0]?.image === image
            ).length;
          }
          // Halted, in the rollout of this image (started after `before`).
          const state = (await bed.store.get('agent'))?.state;
          return state?.phase === 'Halted' && (state.startedAtMs ?? 0) > before;
        },
        120_000,
        200
      );
      // Assess
      const record = await bed.store.get('agent');
      expect(record?.state.haltReason).toContain(canary.id);
      expect(record?.state.clusters[canary.id]).toMatchObject({
        phase: 'Failed',
        reason: expect.stringContaining(why),
      });
      expect(laterBad).toBe(0);
      for (const m of later) {
        expect(
          (await bed.pods(m)).filter(
            (p) => p.spec?.containers[0]?.image === image
          )
        ).toEqual([]);
      }
      expect(bed.s.stack.metrics.fleetRollouts.get('agent')).toBe('Halted');
    },
    300_000
  );

  it('holds everything while paused, waits for a manual wave’s approval, and rolls on once approved', async () => {
    // Prepare: the rest wave now waits for approval.
    const applied = await bed.fleet([
      'apply',
      '-f',
      await bed.writePolicy({ approval: 'manual' }),
    ]);
    expect(applied.stdout).toContain('fleetrolloutpolicy/agent configured');
    expect((await bed.fleet(['pause', 'agent'])).exitCode).toBe(0);
    // Act
    await bed.applyEverywhere('agent:6');
    await pause(5_000);
    const whilePaused = await bed.podsOfImage('agent:6');
    expect((await bed.fleet(['resume', 'agent'])).exitCode).toBe(0);
    await eventually(
      'the early wave done and baked',
      async () => {
        const state = await bed.state();
        return (
          state?.clusters[bed.members[1]?.id ?? '']?.phase === 'Done' &&
          (state.waveDoneAtMs.early ?? Number.POSITIVE_INFINITY) + BAKE_MS <
            systemClock.now()
        );
      },
      120_000,
      200
    );
    await pause(3_000);
    const waiting = await bed.podsOfImage('agent:6');
    const approved = await bed.fleet(['approve', 'agent', 'rest']);
    await eventually(
      'the rollout done',
      async () => (await bed.state())?.phase === 'Done',
      120_000,
      200
    );
    // Assess
    expect(whilePaused).toEqual([0, 0, 0, 0]);
    expect(waiting).toEqual([NODES, NODES, 0, 0]);
    expect(approved.exitCode).toBe(0);
    expect(await bed.podsOfImage('agent:6')).toEqual(EVERY_NODE);
    const history = await bed.fleet(['history', 'agent']);
    for (const word of ['paused', 'resumed', 'approved']) {
      expect(history.stdout).toContain(word);
    }
  }, 300_000);

  // Last: it takes a member's API server away for good.
  it('holds the next waves while a cluster of the early wave is unreachable', async () => {
    // Prepare
    await bed.fleet(['apply', '-f', await bed.writePolicy()]);
    const early = bed.planes[0] as ControlPlane;
    await early.stopComponent('kube-apiserver');
    const reachable = bed.members.filter((_, i) => i !== 1);
    // Act: the early cluster cannot take the template, the others do.
    for (const m of reachable) await setAgentImage(m.http, bed.s.ns, 'agent:7');
    await eventually(
      'the early cluster Unknown',
      async () =>
        (await bed.state())?.clusters[bed.members[1]?.id ?? '']?.phase ===
        'Unknown',
      240_000,
      500
    );
    await pause(5_000);
    // Assess
    const state = await bed.state();
    expect(state?.phase).toBe('Progressing');
    expect(state?.clusters[bed.members[0]?.id ?? '']?.phase).toBe('Done');
    const pods = await Promise.all(
      reachable.map(
        async (m) =>
          (await bed.pods(m)).filter(
            (p) => p.spec?.containers[0]?.image === 'agent:7'
          ).length
      )
    );
    expect(pods).toEqual([NODES, 0, 0]);
  }, 400_000);
});
