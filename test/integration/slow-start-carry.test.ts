/**
 * The slow start carried across one key's syncs (lib/reconcile/slow-start.ts)
 * against a real API server's ResourceQuota admission: a sync that created
 * every pod it tried proves its largest batch, and the key's next sync
 * starts at twice it; a quota met since costs that one batch of refused
 * creates, and the sync after starts at upstream's 1 again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { MemorySlowStartMemory } from '#lib/adapters/memory/memory-slow-start-memory.js';
import {
  createNodes,
  deleteNodes,
} from '#lib/local-cluster/simulated-nodes.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import type { SyncDeps } from '#lib/sync/context.js';
import { syncDaemonSet } from '#lib/sync/sync-daemon-set.js';
import { CountingPodControl } from '#lib/worker/counting-pod-control.js';
import {
  createAgentDaemonSet,
  createNamespace,
  createPodQuota,
  deleteNamespace,
} from '../testbed/kube-fixtures.js';
import { adminHttp, CLUSTER, realDeps } from './sync-loop.js';

/** Counts the creates a sync tried, beside those admitted. */
class AttemptCountingPodControl extends CountingPodControl {
  attempts = 0;
  override createPod(namespace: string, pod: Pod, owner: DaemonSet) {
    this.attempts++;
    return super.createPod(namespace, pod, owner);
  }
}

describe('slow start carried across syncs, against ResourceQuota admission', () => {
  const ns = `carry-${Date.now().toString(36)}`;
  const key = `${CLUSTER}/${ns}/agent`;
  let http: KubeHttp;
  const nodes: string[] = [];

  /** One sync of the key; the creates it tried and those admitted. */
  const syncOnce = async (deps: SyncDeps) => {
    const counting = new AttemptCountingPodControl(deps.podControl);
    // A sync whose creates were refused fails; the counts tell the story.
    await syncDaemonSet(key, { ...deps, podControl: counting }).catch(
      () => undefined
    );
    return { attempts: counting.attempts, admitted: counting.creates };
  };

  beforeAll(async () => {
    http = adminHttp();
    await createNamespace(http, ns);
    nodes.push(
      ...(await createNodes(http, 12, {
        prefix: `${ns}-a-`,
        labels: { carry: ns },
      }))
    );
    await createAgentDaemonSet(http, ns, { carry: ns });
  });

  afterAll(async () => {
    await deleteNodes(http, nodes);
    await deleteNamespace(http, ns);
    http.close();
  });

  it('starts the next sync at twice the proven batch; a quota met since refuses that batch; the sync after starts at 1, as upstream', async () => {
    // Prepare: 12 nodes take rounds of 1, 2, 4 and 5 creates, all admitted.
    const deps = { ...realDeps(http), slowStart: new MemorySlowStartMemory() };
    const first = await syncOnce(deps);
    nodes.push(
      ...(await createNodes(http, 12, {
        prefix: `${ns}-b-`,
        labels: { carry: ns },
      }))
    );
    await createPodQuota(http, ns, { name: 'pods', hard: 16, used: 12 });

    // Act
    const second = await syncOnce(deps);
    const third = await syncOnce(deps);

    // Assess: 10 = 2 × 5 tried at once, no more than the room admitted;
    // then one create, refused.
    expect(first).toEqual({ attempts: 12, admitted: 12 });
    expect(second.attempts).toBe(10);
    expect(second.admitted).toBeLessThanOrEqual(4);
    expect(second.admitted).toBeGreaterThan(0);
    expect(third.attempts).toBe(1);
  });
});
