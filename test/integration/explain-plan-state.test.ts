/**
 * `kubectl dsr explain` and `plan` with `--cluster ID --table NAME`: they
 * read the reconcilers' failed-pod backoff and expectations from the state
 * table (DynamoDB Local) and answer as the next sync would, on the real API
 * server. Without the table they cannot know, and say so.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoExpectationsStore } from '#lib/adapters/dynamodb/dynamo-expectations-store.js';
import { DynamoFailedPodBackoffStore } from '#lib/adapters/dynamodb/dynamo-failed-pod-backoff-store.js';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { openAdvancedDaemonSets } from '#lib/adapters/kube/kube-advanced-daemon-sets.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import type { PluginDeps } from '#lib/cli/plugin/plugin-deps.js';
import { runPlugin } from '#lib/cli/plugin/run-plugin.js';
import {
  createNodes,
  deleteNodes,
} from '#lib/local-cluster/simulated-nodes.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import { failedPodsBackoffKey } from '#lib/reconcile/pods-should-be-on-node.js';
import { syncDaemonSet } from '#lib/sync/sync-daemon-set.js';
import { createTestTable, type TestTable } from '../helpers/dynamo-table.js';
import {
  createAgentDaemonSet,
  createNamespace,
  deleteNamespace,
} from '../testbed/kube-fixtures.js';
import { failPod } from './serverless/cluster-state.js';
import { adminHttp, CLUSTER, realDeps } from './sync-loop.js';

describe('kubectl dsr explain and plan, reading the state table', () => {
  const ns = `explain-state-${Date.now().toString(36)}`;
  let admin: KubeHttp;
  let table: TestTable;
  let nodes: string[] = [];
  let failed: Pod;
  let ds: DaemonSet;
  const stores = () => {
    const t = { ...table, clock: systemClock };
    return {
      expectations: new DynamoExpectationsStore(t),
      failedPodBackoff: new DynamoFailedPodBackoffStore(t),
    };
  };
  const deps: PluginDeps = {
    open: (t) =>
      openAdvancedDaemonSets({
        kubeconfig: t.kubeconfig ?? inject('kubeconfigPath'),
      }),
    now: () => Date.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    write: () => undefined,
    openState: async () => stores(),
  };
  const withState = ['--cluster', 'prod', '--table', 'x', '--endpoint'];
  const dsr = (...argv: string[]) => runPlugin(argv, deps);

  beforeAll(async () => {
    admin = adminHttp();
    table = await createTestTable(inject('dynamodbEndpoint'));
    withState[3] = table.tableName;
    withState.push(inject('dynamodbEndpoint'));
    await createNamespace(admin, ns);
    // A node KWOK leaves alone: a pod failed there stays Failed.
    nodes = await createNodes(admin, 1, {
      prefix: `${ns}-`,
      labels: { es: ns },
      conditions: [{ type: 'Ready', status: 'True' }],
    });
    await createAgentDaemonSet(admin, ns, { es: ns });
    await syncDaemonSet(`${CLUSTER}/${ns}/agent`, realDeps(admin));
    const pods = await admin.list<Pod>('pods', `/api/v1/namespaces/${ns}/pods`);
    failed = pods[0] as Pod;
    await failPod(admin, ns, failed.metadata?.name ?? '');
    ds = await admin.request<DaemonSet>(
      'get ds',
      'GET',
      `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`
    );
  });

  afterAll(async () => {
    await deleteNodes(admin, nodes);
    await deleteNamespace(admin, ns);
    admin.close();
  });

  it('gives the failed-pod backoff until its end, read from the table', async () => {
    // Prepare: the reconcilers backed this node off a minute ago for 2 min.
    const lastUpdateMs = Date.now() - 60_000;
    const key = failedPodsBackoffKey(ds, nodes[0] as string);
    await stores().failedPodBackoff.put(`prod/${key}`, {
      delayMs: 120_000,
      lastUpdateMs,
    });
    // Act
    const read = await dsr(
      'explain',
      'node',
      nodes[0] as string,
      '--ds',
      `${ns}/agent`,
      ...withState
    );
    const unread = await dsr(
      'explain',
      'node',
      nodes[0] as string,
      '--ds',
      `${ns}/agent`
    );
    const plan = JSON.parse(
      (await dsr('plan', `${ns}/agent`, '-o', 'json', ...withState)).stdout
    );
    // Assess
    const until = new Date(lastUpdateMs + 120_000).toISOString();
    expect(read.stderr).toBe('');
    expect(read.stdout).toContain(
      `failed pod ${failed.metadata?.name} is in failed-pod backoff until ${until}; it is replaced after that`
    );
    expect(read.stdout).not.toContain('were not read');
    expect(unread.stdout).toContain(
      `failed pod ${failed.metadata?.name}: the next sync deletes it, and a later one creates a new pod`
    );
    expect(unread.stdout).toContain('were not read');
    expect(plan.deletes).toEqual([]);
    expect(plan.stateRead).toBe(true);
  });

  it('says the next sync writes status only while expectations are unmet', async () => {
    // Prepare: a create the reconcilers have not yet observed.
    await stores().expectations.setExpectations(`prod/${ns}/agent`, 1, 0);
    // Act
    const plan = await dsr('plan', `${ns}/agent`, ...withState);
    // Assess
    expect(plan.stdout).toContain(
      '  waits    for earlier creates/deletes to be observed: status only'
    );
    expect(plan.stdout).not.toContain('delete ');
  });

  it('refuses half a state source', async () => {
    // Act
    const out = await dsr('plan', `${ns}/agent`, '--cluster', 'prod');
    // Assess
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toBe(
      "error: --cluster needs --table NAME or --stage NAME: where the reconcilers keep their state\nSee 'kubectl dsr --help' for usage.\n"
    );
  });
});
