/**
 * The fight guard on the real API server's managedFields: pods that a
 * namespace user creates with `kubectl` and an ownerReference to our
 * DaemonSet (field manager `kubectl-create`) are no rival controller's —
 * they fence neither the DaemonSets nor the cluster; a warning Event names
 * them. (The real rival, kube-controller-manager, still fences:
 * serverless/fight.test.ts.)
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { MemoryOwnershipStore } from '#lib/adapters/memory/memory-ownership-store.js';
import { fieldManagerFor } from '#lib/policy/identity.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import { LocalMetrics } from '#lib/wiring/local-runtime.js';
import { FightGuard } from '#lib/worker/fight-guard.js';
import { FakeClock } from '../helpers/fakes/fake-clock.js';
import { FakeEventRecorder } from '../helpers/fakes/fake-event-recorder.js';
import { FakeLogger } from '../helpers/fakes/fake-logger.js';
import {
  createDaemonSet,
  createNamespace,
  deleteNamespace,
} from '../testbed/kube-fixtures.js';

const MANAGER = fieldManagerFor('dsr-prod-eu-west-1');
const ns = `foreign-pods-${Date.now().toString(36)}`;

describe('FightGuard on pods a namespace user created', () => {
  let http: KubeHttp;

  beforeAll(async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(inject('kubeconfigPath'));
    http = new KubeHttp({ kubeConfig: kc, userAgent: MANAGER });
    await createNamespace(http, ns);
  });
  afterAll(async () => {
    await deleteNamespace(http, ns);
    http.close();
  });

  const base = () => `/apis/apps/v1/namespaces/${ns}/daemonsets`;

  /** Creates DaemonSet `name` and writes its status counters as ours. */
  const ourDaemonSet = async (name: string): Promise<DaemonSet> => {
    await createDaemonSet(http, ns, name, {});
    const ds = await http.request<DaemonSet>(
      'get ds',
      'GET',
      `${base()}/${name}`
    );
    return http.request<DaemonSet>(
      'write status',
      'PUT',
      `${base()}/${name}/status`,
      {
        body: JSON.stringify({
          ...ds,
          status: {
            currentNumberScheduled: 0,
            desiredNumberScheduled: 0,
            numberMisscheduled: 0,
            numberReady: 0,
            observedGeneration: 1,
          },
        }),
      }
    );
  };

  /** `kubectl create` of a pod that names `ds` as its controller. */
  const kubectlCreatePod = (ds: DaemonSet, pod: string) =>
    execFileSync(
      path.join(inject('binDir'), 'kubectl'),
      ['--kubeconfig', inject('kubeconfigPath'), '-n', ns, 'create', '-f', '-'],
      {
        input: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name: pod,
            labels: { app: ds.metadata?.name },
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'DaemonSet',
                name: ds.metadata?.name,
                uid: ds.metadata?.uid,
                controller: true,
              },
            ],
          },
          spec: {
            nodeName: 'no-such-node',
            containers: [{ name: 'c', image: 'pause' }],
          },
        }),
      }
    );

  it('fences nothing and warns of the pods, for two DaemonSets seen twice each', async () => {
    // Prepare: two pods of each of two DaemonSets, created by kubectl.
    const store = new MemoryOwnershipStore({ clock: new FakeClock() });
    const guard = new FightGuard({
      store,
      metrics: new LocalMetrics(),
      manager: MANAGER,
    });
    const events = new FakeEventRecorder();
    const created: Pod[] = [];
    // Act
    for (const name of ['a', 'b']) {
      const ds = await ourDaemonSet(name);
      for (const pod of [`${name}-1`, `${name}-2`]) {
        kubectlCreatePod(ds, pod);
        const pods = await http.request<{ items: Pod[] }>(
          'list pods',
          'GET',
          `/api/v1/namespaces/${ns}/pods?labelSelector=app%3D${name}`
        );
        created.push(...pods.items.filter((p) => p.metadata?.name === pod));
        await guard.inspect(
          `c1/${ns}/${name}`,
          { daemonSet: ds, pods: pods.items },
          events,
          new FakeLogger()
        );
      }
    }
    // Assess: the API server names kubectl's manager; no fence anywhere.
    expect(created.map((p) => p.metadata?.managedFields?.[0]?.manager)).toEqual(
      Array(4).fill('kubectl-create')
    );
    expect(await guard.fenced(`c1/${ns}/a`)).toBeUndefined();
    expect(await guard.fenced(`c1/${ns}/b`)).toBeUndefined();
    expect(await store.getFence('c1')).toBeUndefined();
    expect(events.events.map((e) => e.reason)).not.toContain(
      'ControllerConflict'
    );
    expect(events.events.map((e) => [e.type, e.reason])).toContainEqual([
      'Warning',
      'ForeignControlledPod',
    ]);
  });
});
