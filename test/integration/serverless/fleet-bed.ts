/**
 * The bed of the fleet rollout end-to-end tests: four real control planes
 * (one etcd, four API servers, KWOK nodes) under one stack, each running
 * the DaemonSet `agent` on agent:1, registered as member clusters; `dsr
 * fleet` as an operator runs it on the stack's table; and the moves of
 * GitOps (a template everywhere) and of a broken kubelet.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { inject } from 'vitest';
import { DynamoClusterRegistry } from '#lib/adapters/dynamodb/dynamo-cluster-registry.js';
import { DynamoFleetRolloutStore } from '#lib/adapters/dynamodb/dynamo-fleet-rollout-store.js';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { openAdvancedDaemonSets } from '#lib/adapters/kube/kube-advanced-daemon-sets.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { runFleetCli } from '#lib/cli/fleet/run-fleet-cli.js';
import { ControlPlane } from '#lib/local-cluster/control-plane.js';
import { createNodes } from '#lib/local-cluster/simulated-nodes.js';
import type { Pod } from '#lib/reconcile/k8s/types.js';
import {
  createAgentDaemonSet,
  createNamespace,
} from '../../testbed/kube-fixtures.js';
import { isConverged, livePodsOf, setAgentImage } from './cluster-state.js';
import { E2eScenario } from './e2e-scenario.js';
import { eventually } from './stack.js';

export const NODES = 3;
export const BAKE_MS = 3_000;
/** Every member's pod count when each node runs one. */
export const EVERY_NODE = [NODES, NODES, NODES, NODES];

/** One member cluster: its id, its API and its nodes. */
export interface Member {
  id: string;
  http: KubeHttp;
  nodes: string[];
}

/** The API server's times of `image`'s pods: first created, last Ready. */
export const podTimesOf = (pods: readonly Pod[], image: string) => {
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

export const pause = (ms: number) =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** The running bed. */
export class FleetBed {
  readonly s: E2eScenario;
  readonly planes: ControlPlane[];
  readonly members: Member[];
  readonly store: DynamoFleetRolloutStore;

  private constructor(
    s: E2eScenario,
    planes: ControlPlane[],
    members: Member[]
  ) {
    this.s = s;
    this.planes = planes;
    this.members = members;
    this.store = new DynamoFleetRolloutStore({
      client: s.stack.table.client,
      tableName: s.stack.table.tableName,
      clock: systemClock,
    });
  }

  /** Starts the stack on the first cluster, then three more members. */
  static async start(name: string): Promise<FleetBed> {
    const s = await E2eScenario.start(name, {
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
    const members: Member[] = [
      { id: s.stack.cluster, http: s.admin, nodes: s.nodes },
    ];
    const planes: ControlPlane[] = [];
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
    return new FleetBed(s, planes, members);
  }

  /**
   * `npx dsr fleet ARGV…` on the stack's table, as an operator runs it;
   * `rollback` opens a member on its registered kubeconfig.
   */
  fleet(argv: string[]) {
    const { table } = this.s.stack;
    return runFleetCli([...argv, '--table', table.tableName], {}, () => ({
      store: this.store,
      registry: new DynamoClusterRegistry({
        client: table.client,
        tableName: table.tableName,
        clock: systemClock,
        cacheTtlMs: 0,
      }),
      clock: systemClock,
      readTextFile: (file) => readFileSync(file, 'utf8'),
      openMember: (target) => openAdvancedDaemonSets(target),
    }));
  }

  /**
   * Writes the policy as an operator's file: waves canary (the first
   * cluster), early (the second) and rest, with `rest` (and `canary`) as
   * given.
   */
  async writePolicy(
    rest: Record<string, unknown> = {},
    canary: Record<string, unknown> = {}
  ): Promise<string> {
    const [c0, c1, c2, c3] = this.members.map((m) => m.id);
    const file = join(await mkdtemp(join(tmpdir(), 'dsr-fleet-')), 'a.yaml');
    await writeFile(
      file,
      dump({
        apiVersion: 'fleet.dsr.dev/v1alpha1',
        kind: 'FleetRolloutPolicy',
        metadata: { name: 'agent' },
        spec: {
          target: { namespace: this.s.ns, name: 'agent' },
          clusters: { ids: [c0, c1, c2, c3] },
          waves: [
            { name: 'canary', clusters: { ids: [c0] }, bake: '3s', ...canary },
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
  }

  /** Returns the live pods of `agent` in `m`. */
  pods(m: Member): Promise<Pod[]> {
    return livePodsOf(m.http, this.s.ns, 'agent');
  }

  /** How many pods of `image` each member runs, in member order. */
  podsOfImage(image: string): Promise<number[]> {
    return Promise.all(
      this.members.map(
        async (m) =>
          (await this.pods(m)).filter(
            (p) => p.spec?.containers[0]?.image === image
          ).length
      )
    );
  }

  /** Waits until every member runs `image` on each of its nodes. */
  async converged(image: string): Promise<void> {
    for (const m of this.members) {
      await eventually(
        `${m.id} on ${image}`,
        () => isConverged(m.http, this.s.ns, m.nodes, image),
        120_000,
        200
      );
    }
  }

  /** Sets `image` on every member at once, as GitOps does. */
  async applyEverywhere(image: string): Promise<void> {
    for (const m of this.members) await setAgentImage(m.http, this.s.ns, image);
  }

  /** The stored rollout state of `agent`. */
  async state() {
    return (await this.store.get('agent'))?.state;
  }

  /**
   * Plays a broken kubelet on `m`: each pod of `image` not yet broken
   * reports not Ready, its container waiting for `reason`.
   */
  async breakPods(m: Member, image: string, reason: string): Promise<void> {
    for (const p of await this.pods(m)) {
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
        `/api/v1/namespaces/${this.s.ns}/pods/${p.metadata?.name}/status`,
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
  }

  async close(): Promise<void> {
    await this.s?.close();
    for (const m of this.members.slice(1)) m.http.close();
    for (const plane of this.planes) await plane.stop();
  }
}
