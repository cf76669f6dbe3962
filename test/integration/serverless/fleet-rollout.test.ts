/**
 * A fleet rollout end to end on four real control planes (one etcd, four
 * API servers, KWOK nodes) under one stack: a new image applied to every
 * cluster at once rolls wave by wave. No cluster of a wave gets a pod of
 * the new image before the wave before it is done and baked, and every
 * cluster ends on it. The policy goes in as `dsr fleet apply` stores it;
 * the dispatcher's tick wakes it, as in a deployment.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoFleetRolloutStore } from '#lib/adapters/dynamodb/dynamo-fleet-rollout-store.js';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { ControlPlane } from '#lib/local-cluster/control-plane.js';
import { createNodes } from '#lib/local-cluster/simulated-nodes.js';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import { testFleetPolicy } from '../../helpers/fleet-policies.js';
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

describe('serverless runtime: fleet rollout across four clusters', () => {
  let s: E2eScenario;
  reportLogOnFailure(() => s?.stack?.logger);
  const planes: ControlPlane[] = [];
  const members: Member[] = [];
  let store: DynamoFleetRolloutStore;

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
    const policy = testFleetPolicy('agent', {
      target: { namespace: s.ns, name: 'agent' },
      clusters: { ids: [c0, c1, c2, c3] },
      waves: [
        { name: 'canary', clusters: { ids: [c0] }, bake: '3s' },
        { name: 'early', clusters: { ids: [c1] }, bake: '3s' },
        {
          name: 'rest',
          clusters: { ids: [c2, c3] },
          maxConcurrentClusters: 2,
        },
      ],
    });
    await store.applyPolicy(policy, 'test', systemClock.now());
    await eventually(
      'every member pinned',
      async () =>
        Object.keys((await store.get('agent'))?.state.stable ?? {}).length ===
        4,
      60_000,
      200
    );
    // Act: GitOps applies agent:2 to every cluster at once.
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
    // Assess
    const at = (map: Map<string, number>, id: string) => map.get(id) ?? 0;
    expect(at(firstNew, c1)).toBeGreaterThanOrEqual(at(done, c0) + BAKE_MS / 2);
    for (const c of [c2, c3]) {
      expect(at(firstNew, c)).toBeGreaterThanOrEqual(
        at(done, c1) + BAKE_MS / 2
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
  }, 400_000);
});
