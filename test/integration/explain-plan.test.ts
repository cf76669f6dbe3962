/**
 * `kubectl dsr plan` and `kubectl dsr explain` on the real API server, under
 * the read-only viewer role (infra/kubernetes/rbac-viewer.yaml): they answer
 * with the reconciler's own decisions, name the predicate that keeps a node
 * without a pod, and write nothing — then a real sync does what plan said.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { openAdvancedDaemonSets } from '#lib/adapters/kube/kube-advanced-daemon-sets.js';
import type { PluginDeps } from '#lib/cli/plugin/plugin-deps.js';
import { runPlugin } from '#lib/cli/plugin/run-plugin.js';
import {
  createNodes,
  deleteNodes,
} from '#lib/local-cluster/simulated-nodes.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import {
  createAgentDaemonSet,
  createNamespace,
  deleteNamespace,
} from '../testbed/kube-fixtures.js';
import {
  createReconcilerIdentity,
  type ReconcilerIdentity,
} from './reconciler-identity.js';
import { adminHttp, CLUSTER, realDeps, syncUntil } from './sync-loop.js';

describe('kubectl dsr plan and explain (read-only, on the real API server)', () => {
  const ns = `explain-${Date.now().toString(36)}`;
  const dsPath = `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`;
  let admin: KubeHttp;
  let viewer: ReconcilerIdentity;
  let nodes: string[] = [];
  const [fits0, fits1] = [`${ns}-0`, `${ns}-1`];
  const deps = (): PluginDeps => ({
    open: (t) =>
      openAdvancedDaemonSets({
        kubeconfig: t.kubeconfig ?? viewer.kubeconfigPath,
      }),
    now: () => Date.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    write: () => undefined,
  });
  const dsr = (...argv: string[]) => runPlugin(argv, deps());
  const pods = () =>
    admin.list<Pod>('list pods', `/api/v1/namespaces/${ns}/pods`);
  const converged = (image: string) => async () => {
    const ds = await admin.request<DaemonSet>('get ds', 'GET', dsPath);
    const live = (await pods()).filter((p) => !p.metadata?.deletionTimestamp);
    return (
      ds.status?.numberAvailable === 2 &&
      ds.status.updatedNumberScheduled === 2 &&
      live.length === 2 &&
      live.every((p) => p.spec?.containers[0]?.image === image)
    );
  };

  beforeAll(async () => {
    admin = adminHttp();
    await createNamespace(admin, ns);
    viewer = await createReconcilerIdentity(admin, ns, 'viewer');
    nodes = [
      ...(await createNodes(admin, 2, {
        prefix: `${ns}-`,
        labels: { ep: ns },
      })),
      ...(await createNodes(admin, 1, {
        prefix: `${ns}-t`,
        labels: { ep: ns },
        taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
      })),
      ...(await createNodes(admin, 1, { prefix: `${ns}-u` })),
    ];
    await createAgentDaemonSet(admin, ns, { ep: ns }, 'agent:1', {
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 1 },
      },
    });
  });

  afterAll(async () => {
    await viewer.remove();
    await deleteNodes(admin, nodes);
    await deleteNamespace(admin, ns);
    admin.close();
  });

  it('plans the creates on the fitting nodes and writes nothing', async () => {
    // Prepare
    const before = await admin.request<DaemonSet>('get ds', 'GET', dsPath);
    // Act
    const text = await dsr('plan', `${ns}/agent`);
    const json = await dsr('plan', `ds/agent`, '-n', ns, '-o', 'json');
    // Assess
    expect(text.stderr).toBe('');
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain(`create   2 pod(s) on ${fits0}, ${fits1}`);
    const report = JSON.parse(json.stdout);
    expect(report.creates).toEqual([fits0, fits1]);
    expect(report.kind).toBe('apps/v1');
    expect(report.status).toContainEqual({
      field: 'desiredNumberScheduled',
      from: 0,
      to: 2,
    });
    const after = await admin.request<DaemonSet>('get ds', 'GET', dsPath);
    expect(after.metadata?.resourceVersion).toBe(
      before.metadata?.resourceVersion
    );
    expect(await pods()).toEqual([]);
  });

  it('names the untolerated taint and the unmatched nodeSelector', async () => {
    // Act
    const taint = await dsr(
      'explain',
      'node',
      `${ns}-t0`,
      '--ds',
      `${ns}/agent`
    );
    const label = await dsr(
      'explain',
      'node',
      `${ns}-u0`,
      '--ds',
      `${ns}/agent`,
      '-o',
      'json'
    );
    const fits = await dsr('explain', 'node', fits0, '--ds', `${ns}/agent`);
    // Assess
    expect(taint.stdout).toContain(
      'no daemon pod: untolerated taint dedicated=gpu:NoSchedule'
    );
    expect(taint.stdout).toContain('predicate: taint');
    const explained = JSON.parse(label.stdout);
    expect(explained.verdict).toBe(
      `no daemon pod: nodeSelector ep=${ns}: node has no label ep`
    );
    expect(explained.rejection.predicate).toBe('nodeAffinity');
    expect(fits.stdout).toContain('no pod yet: the next sync creates one');
  });

  it('answers "nothing to do" once a real sync did what plan said, and explains a rollout', async () => {
    // Prepare: the sync core converges the DaemonSet.
    const deps = realDeps(admin);
    const key = `${CLUSTER}/${ns}/agent`;
    await syncUntil(key, deps, converged('agent:1'));
    // Act
    const idle = await dsr('plan', `${ns}/agent`);
    const running = await dsr('explain', 'node', fits1, '--ds', `${ns}/agent`);
    await admin.request('new image', 'PATCH', dsPath, {
      body: JSON.stringify({
        spec: {
          template: { spec: { containers: [{ name: 'c', image: 'agent:2' }] } },
        },
      }),
      contentType: 'application/strategic-merge-patch+json',
    });
    const rolling = JSON.parse(
      (await dsr('plan', `${ns}/agent`, '-o', 'json')).stdout
    );
    // Assess
    expect(idle.stdout).toContain(
      'nothing to do: the DaemonSet matches its spec'
    );
    expect(running.stdout).toMatch(
      /runs agent-\w+ \(current revision, Running, Ready\)/
    );
    expect(rolling.deletes).toHaveLength(1);
    expect(rolling.deletes[0].reason).toBe('rolling update (old revision)');
    expect(rolling.budget).toEqual({
      maxUnavailable: 1,
      maxSurge: 0,
      inUse: 0,
      left: 1,
    });
    await syncUntil(key, deps, converged('agent:2'));
  });

  it('says which DaemonSet, or which node, it could not find', async () => {
    // Act
    const out = await dsr('plan', `${ns}/nope`);
    const node = await dsr('explain', 'node', `${ns}-x`, '--ds', `${ns}/agent`);
    // Assess
    expect(node).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `Error from server (NotFound): nodes "${ns}-x" not found\n`,
    });
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toBe(
      `Error from server (NotFound): no DaemonSet "nope" in namespace ${ns} (of either kind)\n`
    );
  });
});
