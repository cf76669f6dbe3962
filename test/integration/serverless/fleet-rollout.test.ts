/**
 * A fleet rollout end to end on four real control planes (one etcd, four
 * API servers, KWOK nodes) under one stack: a new image applied to every
 * cluster at once rolls wave by wave. No cluster of a wave gets a pod of
 * the new image before the wave before it is done and baked, and every
 * cluster ends on it. The policy goes in as `dsr fleet apply` stores it;
 * the dispatcher's tick wakes it, as in a deployment.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoClusterRegistry } from '#lib/adapters/dynamodb/dynamo-cluster-registry.js';
import { DynamoFleetRolloutStore } from '#lib/adapters/dynamodb/dynamo-fleet-rollout-store.js';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { runFleetCli } from '#lib/cli/fleet/run-fleet-cli.js';
import { ControlPlane } from '#lib/local-cluster/control-plane.js';
import { createNodes } from '#lib/local-cluster/simulated-nodes.js';
import type { Pod } from '#lib/reconcile/k8s/types.js';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import {
  createAgentDaemonSet,
  createNamespace,
} from '../../testbed/kube-fixtures.js';
import { isConverged, livePodsOf, setAgentImage } from './cluster-state.js';
import { E2eScenario } from './e2e-scenario.js';
import { eventually } from './stack.js';

const NODES = 3;
const BAKE_MS = 3_000;

/** One member cluster: its id, its API and its nodes. */
interface Member {
  id: string;
  http: KubeHttp;
  nodes: string[];
}

/** The API server's times of `image`'s pods: first created, last Ready. */
const podTimesOf = (pods: readonly Pod[], image: string) => {
  const of = pods.filter((p) => p.spec?.containers[0]?.image === image);
  return {
    firstCreatedMs: Math.min(
      ...of.map((p) => Date.parse(p.metadata?.creationTimestamp ?? ''))
    ),
    lastReadyMs: Math.max(
      ...of.map((p) =>
        Date.parse(
          p.status?.conditions?.find((c) => c.type === 'Ready')
            ?.lastTransitionTime ?? ''
        )
      )
    ),
  };
};

describe('serverless runtime: fleet rollout across four clusters', () => {
  let s: E2eScenario;
  reportLogOnFailure(() => s?.stack?.logger);
  const planes: ControlPlane[] = [];
  const members: Member[] = [];
  let store: DynamoFleetRolloutStore;
  /** `npx dsr fleet ARGV…` on the stack's table, as an operator runs it. */
  const fleet = (argv: string[]) =>
    runFleetCli([...argv, '--table', s.stack.table.tableName], {}, () => ({
      store,
      registry: new DynamoClusterRegistry({
        client: s.stack.table.client,
        tableName: s.stack.table.tableName,
        clock: systemClock,
        cacheTtlMs: 0,
      }),
      clock: systemClock,
      readTextFile: (file) => readFileSync(file, 'utf8'),
    }));

  beforeAll(async () => {
    s = await E2eScenario.start('sls-fleet', {
      nodes: NODES,
      stack: { dispatchTickMs: 2_000 },
    });
    const rolling = {
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: NODES },
      },
    };
    await createAgentDaemonSet(s.admin, s.ns, s.selector, 'agent:1', rolling);
    members.push({ id: s.stack.cluster, http: s.admin, nodes: s.nodes });
    for (const i of [1, 2, 3]) {
      const plane = await ControlPlane.start({
        binDir: inject('binDir'),
        sharedEtcd: {
          clientPort: inject('etcdClientPort'),
          prefix: `/fleet-${s.ns}-${i}`,
        },
      });
      planes.push(plane);
      const http = plane.http();
      await createNamespace(http, s.ns);
      const nodes = await createNodes(http, NODES, {
        prefix: `m${i}-`,
        labels: s.selector,
      });
      await createAgentDaemonSet(http, s.ns, s.selector, 'agent:1', rolling);
      const id = `${s.stack.cluster}-m${i}`;
      await s.stack.registerCluster(id, plane.kubeconfigPath);
      members.push({ id, http, nodes });
    }
    // The bridge picks the new clusters up on its next invocation.
    await s.stack.stopBridge();
    s.stack.startBridge();
    store = new DynamoFleetRolloutStore({
      client: s.stack.table.client,
      tableName: s.stack.table.tableName,
      clock: systemClock,
    });
  }, 300_000);

  /**
   * Writes the policy as an operator's file: waves canary (the first
   * cluster), early (the second) and rest, with `rest` as given.
   */
  const writePolicy = async (rest: Record<string, unknown> = {}) => {
    const [c0, c1, c2, c3] = members.map((m) => m.id);
    const file = join(await mkdtemp(join(tmpdir(), 'dsr-fleet-')), 'a.yaml');
    await writeFile(
      file,
      dump({
        apiVersion: 'fleet.dsr.dev/v1alpha1',
        kind: 'FleetRolloutPolicy',
        metadata: { name: 'agent' },
        spec: {
          target: { namespace: s.ns, name: 'agent' },
          clusters: { ids: [c0, c1, c2, c3] },
          waves: [
            { name: 'canary', clusters: { ids: [c0] }, bake: '3s' },
            { name: 'early', clusters: { ids: [c1] }, bake: '3s' },
            {
              name: 'rest',
              clusters: { ids: [c2, c3] },
              maxConcurrentClusters: 2,
              ...rest,
            },
          ],
          health: { progressDeadline: '10s' },
        },
      })
    );
    return file;
  };

  /** How many pods of `image` each member runs, in member order. */
  const podsOfImage = (image: string) =>
    Promise.all(
      members.map(
        async (m) =>
          (await livePodsOf(m.http, s.ns, 'agent')).filter(
            (p) => p.spec?.containers[0]?.image === image
          ).length
      )
    );

  /** Sets `image` on every member at once, as GitOps does. */
  const applyEverywhere = async (image: string) => {
    for (const m of members) await setAgentImage(m.http, s.ns, image);
  };

  const phase = async () => (await store.get('agent'))?.state;

  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  const podTimes = async (m: Member, image: string) =>
    podTimesOf(await livePodsOf(m.http, s.ns, 'agent'), image);

  /**
   * Plays a broken kubelet on `m`: each pod of `image` not yet broken
   * reports not Ready, its container waiting for `reason`.
   */
  const breakPods = async (m: Member, image: string, reason: string) => {
    const pods = await livePodsOf(m.http, s.ns, 'agent');
    for (const p of pods) {
      const c = p.status?.containerStatuses?.[0];
      if (p.spec?.containers[0]?.image !== image || c?.state?.waiting) continue;
      const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      const condition = (type: string, status: string) => ({
        type,
        status,
        lastTransitionTime: now,
      });
      await m.http.request(
        'break pod',
        'PATCH',
        `/api/v1/namespaces/${s.ns}/pods/${p.metadata?.name}/status`,
        {
          body: JSON.stringify({
            status: {
              conditions: [
                condition('Initialized', 'True'),
                condition('Ready', 'False'),
                condition('ContainersReady', 'False'),
              ],
              containerStatuses: [
                {
                  name: 'c',
                  image,
                  imageID: '',
                  ready: false,
                  restartCount: reason === 'CrashLoopBackOff' ? 5 : 0,
                  state: { waiting: { reason } },
                },
              ],
            },
          }),
          contentType: 'application/merge-patch+json',
        }
      );
    }
  };

  afterAll(async () => {
    await s?.close();
    for (const m of members.slice(1)) m.http.close();
    for (const plane of planes) await plane.stop();
  });

  it('rolls a template applied everywhere wave by wave, each after the bake before it', async () => {
    // Prepare
    for (const m of members) {
      await eventually(
        `${m.id} on agent:1`,
        () => isConverged(m.http, s.ns, m.nodes, 'agent:1'),
        120_000,
        200
      );
    }
    const [c0, c1, c2, c3] = members.map((m) => m.id) as [
      string,
      string,
      string,
      string,
    ];
    const policyFile = await writePolicy();
    const applied = await fleet(['apply', '-f', policyFile]);
    expect(applied).toMatchObject({ exitCode: 0, stderr: '' });
    expect(applied.stdout).toContain('fleetrolloutpolicy/agent created');
    await eventually(
      'every member pinned',
      async () =>
        Object.keys((await store.get('agent'))?.state.stable ?? {}).length ===
        4,
      60_000,
      200
    );
    // Act: GitOps applies agent:2 to every cluster at once.
    const before = { ...s.stack.metrics };
    const startedAt = systemClock.now();
    for (const m of members) await setAgentImage(m.http, s.ns, 'agent:2');
    const firstNew = new Map<string, number>();
    const done = new Map<string, number>();
    await eventually(
      'every cluster on agent:2',
      async () => {
        const now = systemClock.now();
        for (const m of members) {
          if (done.has(m.id)) continue;
          const pods = await livePodsOf(m.http, s.ns, 'agent');
          const fresh = pods.filter(
            (p) => p.spec?.containers[0]?.image === 'agent:2'
          );
          if (fresh.length > 0 && !firstNew.has(m.id)) firstNew.set(m.id, now);
          if (await isConverged(m.http, s.ns, m.nodes, 'agent:2')) {
            done.set(m.id, now);
          }
        }
        return done.size === members.length;
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
      members.map((m) => podTimes(m, 'agent:2'))
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
      async () => (await store.get('agent'))?.state.phase === 'Done',
      60_000,
      200
    );
    const record = await store.get('agent');
    expect(Object.values(record?.state.stable ?? {})).toHaveLength(4);
    expect(new Set(Object.values(record?.state.stable ?? {})).size).toBe(1);
    expect(record?.history.map((h) => h.note)).toContain('rollout done');
    const status = await fleet(['status', 'agent']);
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toMatch(/Done/);
    console.info(
      `$ npx dsr fleet status agent --table it-state\n${status.stdout}`
    );
    const m = s.stack.metrics;
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
      const [canary, ...later] = members as [Member, ...Member[]];
      const before = (await store.get('agent'))?.state.startedAtMs ?? 0;
      // Act: GitOps applies the bad image everywhere; the canary's kubelet
      // (the test) reports its pods broken.
      for (const m of members) await setAgentImage(m.http, s.ns, image);
      let laterBad = 0;
      await eventually(
        'the rollout halted',
        async () => {
          await breakPods(canary, image, reason);
          for (const m of later) {
            laterBad += (await livePodsOf(m.http, s.ns, 'agent')).filter(
              (p) => p.spec?.containers[0]?.image === image
            ).length;
          }
          // Halted, in the rollout of this image (started after `before`).
          const state = (await store.get('agent'))?.state;
          return state?.phase === 'Halted' && (state.startedAtMs ?? 0) > before;
        },
        120_000,
        200
      );
      // Assess
      const record = await store.get('agent');
      expect(record?.state.haltReason).toContain(canary.id);
      expect(record?.state.clusters[canary.id]).toMatchObject({
        phase: 'Failed',
        reason: expect.stringContaining(why),
      });
      expect(laterBad).toBe(0);
      for (const m of later) {
        expect(
          (await livePodsOf(m.http, s.ns, 'agent')).filter(
            (p) => p.spec?.containers[0]?.image === image
          )
        ).toEqual([]);
      }
      expect(s.stack.metrics.fleetRollouts.get('agent')).toBe('Halted');
    },
    300_000
  );

  it('holds everything while paused, waits for a manual wave’s approval, and rolls on once approved', async () => {
    // Prepare: the rest wave now waits for approval.
    const applied = await fleet([
      'apply',
      '-f',
      await writePolicy({ approval: 'manual' }),
    ]);
    expect(applied.stdout).toContain('fleetrolloutpolicy/agent configured');
    expect((await fleet(['pause', 'agent'])).exitCode).toBe(0);
    // Act
    await applyEverywhere('agent:6');
    await pause(5_000);
    const whilePaused = await podsOfImage('agent:6');
    expect((await fleet(['resume', 'agent'])).exitCode).toBe(0);
    await eventually(
      'the early wave done and baked',
      async () => {
        const state = await phase();
        return (
          state?.clusters[members[1]?.id ?? '']?.phase === 'Done' &&
          (state.waveDoneAtMs.early ?? Number.POSITIVE_INFINITY) + BAKE_MS <
            systemClock.now()
        );
      },
      120_000,
      200
    );
    await pause(3_000);
    const waiting = await podsOfImage('agent:6');
    const approved = await fleet(['approve', 'agent', 'rest']);
    await eventually(
      'the rollout done',
      async () => (await phase())?.phase === 'Done',
      120_000,
      200
    );
    // Assess
    expect(whilePaused).toEqual([0, 0, 0, 0]);
    expect(waiting).toEqual([NODES, NODES, 0, 0]);
    expect(approved.exitCode).toBe(0);
    expect(await podsOfImage('agent:6')).toEqual([NODES, NODES, NODES, NODES]);
    const history = await fleet(['history', 'agent']);
    for (const word of ['paused', 'resumed', 'approved']) {
      expect(history.stdout).toContain(word);
    }
  }, 300_000);

  // Last: it takes a member's API server away for good.
  it('holds the next waves while a cluster of the early wave is unreachable', async () => {
    // Prepare
    await fleet(['apply', '-f', await writePolicy()]);
    const early = planes[0] as ControlPlane;
    await early.stopComponent('kube-apiserver');
    const reachable = members.filter((_, i) => i !== 1);
    // Act: the early cluster cannot take the template, the others do.
    for (const m of reachable) await setAgentImage(m.http, s.ns, 'agent:7');
    await eventually(
      'the early cluster Unknown',
      async () =>
        (await phase())?.clusters[members[1]?.id ?? '']?.phase === 'Unknown',
      240_000,
      500
    );
    await pause(5_000);
    // Assess
    const state = await phase();
    expect(state?.phase).toBe('Progressing');
    expect(state?.clusters[members[0]?.id ?? '']?.phase).toBe('Done');
    const pods = await Promise.all(
      reachable.map(
        async (m) =>
          (await livePodsOf(m.http, s.ns, 'agent')).filter(
            (p) => p.spec?.containers[0]?.image === 'agent:7'
          ).length
      )
    );
    expect(pods).toEqual([NODES, 0, 0]);
  }, 400_000);
});
