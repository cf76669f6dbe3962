/**
 * Never fight another controller: with upstream's DaemonSet controller
 * started beside ours on the same cluster, the reconciler sees its writes,
 * fences each DaemonSet it fights over and then, the second one fenced, the
 * cluster, within a minute (Event, metric, error line), and makes no pod
 * writes after that.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoBridgeLeaseStore } from '#lib/adapters/dynamodb/dynamo-bridge-lease-store.js';
import { DynamoClusterHealthStore } from '#lib/adapters/dynamodb/dynamo-cluster-health-store.js';
import { DynamoClusterRegistry } from '#lib/adapters/dynamodb/dynamo-cluster-registry.js';
import { DynamoNodeIndexStore } from '#lib/adapters/dynamodb/dynamo-node-index-store.js';
import { DynamoOwnershipStore } from '#lib/adapters/dynamodb/dynamo-ownership-store.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { runClustersCli } from '#lib/cli/clusters/run-clusters-cli.js';
import { CONTROLLER_CONFLICT_REASON } from '#lib/policy/fight-detection.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import {
  type Component,
  stopProcess,
} from '../../../lib/local-cluster/processes.js';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import {
  createAgentDaemonSet,
  createDaemonSet,
} from '../../testbed/kube-fixtures.js';
import { startUpstreamDaemonSetController } from '../../testbed/upstream-controller.js';
import {
  isConverged,
  isDaemonSetConverged,
  livePodsOf,
  setAgentImage,
} from './cluster-state.js';
import { E2eScenario } from './e2e-scenario.js';
import { eventually } from './stack.js';

/** Patches a DaemonSet's container image (a template change). */
const setImage = (
  admin: E2eScenario['admin'],
  ns: string,
  name: string,
  image: string
) =>
  admin.request(
    `patch image of ${name}`,
    'PATCH',
    `/apis/apps/v1/namespaces/${ns}/daemonsets/${name}`,
    {
      body: JSON.stringify({
        spec: { template: { spec: { containers: [{ name: 'c', image }] } } },
      }),
      contentType: 'application/strategic-merge-patch+json',
    }
  );

describe('serverless runtime: another DaemonSet controller in the cluster', () => {
  let s: E2eScenario;
  reportLogOnFailure(() => s?.stack?.logger);
  let upstream: Component | undefined;

  beforeAll(async () => {
    s = await E2eScenario.start('sls-fight', { nodes: 3 });
    await createAgentDaemonSet(s.admin, s.ns, s.selector);
    await createDaemonSet(s.admin, s.ns, 'second', s.selector);
    await eventually('convergence', () => isConverged(s.admin, s.ns, s.nodes));
    await eventually('second converged', () =>
      isDaemonSetConverged(s.admin, s.ns, 'second', s.nodes)
    );
  });

  afterAll(async () => {
    if (upstream) await stopProcess(upstream);
    await s?.close();
  });

  it('keeps a status condition a user wrote and goes on (upstream e2e "should verify changes to a daemon set status", then kubectl patch)', async () => {
    // Prepare: a user patches a condition on the status, twice.
    const statusPath = `/apis/apps/v1/namespaces/${s.ns}/daemonsets/agent/status`;
    const patchCondition = (status: string) =>
      s.admin.request('patch status condition', 'PATCH', statusPath, {
        query: { fieldManager: 'kubectl-patch' },
        body: JSON.stringify({
          status: {
            conditions: [
              {
                type: 'StatusUpdate',
                status,
                reason: 'E2E',
                message: 'Set from e2e test',
              },
            ],
          },
        }),
        contentType: 'application/merge-patch+json',
      });
    const replaced = async () => {
      const [victim] = await livePodsOf(s.admin, s.ns, 'agent');
      await s.admin.request(
        'delete pod',
        'DELETE',
        `/api/v1/namespaces/${s.ns}/pods/${victim?.metadata?.name}`
      );
      await eventually('the deleted pod replaced', async () => {
        const pods = await livePodsOf(s.admin, s.ns, 'agent');
        return (
          pods.length === s.nodes.length &&
          !pods.some((p) => p.metadata?.uid === victim?.metadata?.uid) &&
          (await isConverged(s.admin, s.ns, s.nodes))
        );
      });
    };
    // Act: each patch is followed by syncs (a pod deleted and replaced).
    await patchCondition('True');
    await replaced();
    // managedFields keep whole seconds: a later second is a new sighting.
    await new Promise((r) => setTimeout(r, 1_100));
    await patchCondition('False');
    await replaced();
    // Assess
    const fence = await new DynamoOwnershipStore({
      ...s.stack.table,
      clock: systemClock,
    }).getFence(s.stack.cluster);
    expect(fence).toBeUndefined();
    expect(s.stack.metrics.conflicts.size).toBe(0);
    const ds = await s.admin.request<DaemonSet>(
      'get agent',
      'GET',
      `/apis/apps/v1/namespaces/${s.ns}/daemonsets/agent`
    );
    expect(ds.status?.conditions).toEqual([
      expect.objectContaining({ type: 'StatusUpdate', status: 'False' }),
    ]);
  });

  it('detects the other controller within a minute and stops acting on the cluster', async () => {
    // Act: upstream starts; template changes make both act.
    upstream = await startUpstreamDaemonSetController({
      binDir: inject('binDir'),
      kubeconfigPath: inject('kubeconfigPath'),
      logDir: inject('logDir'),
    });
    const started = systemClock.now();
    // Both act on every template change; roll until the fight shows.
    let image = 1;
    const fences = new DynamoOwnershipStore({
      ...s.stack.table,
      clock: systemClock,
    });
    await eventually(
      'fight detection',
      async () => {
        if (await fences.getFence(s.stack.cluster)) return true;
        image++;
        await setAgentImage(s.admin, s.ns, `agent:${image}`);
        await setImage(s.admin, s.ns, 'second', `agent:${image}`);
        return false;
      },
      90_000,
      3_000
    );
    const detectedMs = systemClock.now() - started;
    const writesAtFence = s.stack.metrics.creates + s.stack.metrics.deletes;
    // Keep the cluster busy: nodes change, the other controller converges.
    await setAgentImage(s.admin, s.ns, 'agent:3');
    await eventually(
      'upstream rolls alone',
      () => isConverged(s.admin, s.ns, s.nodes, 'agent:3'),
      60_000
    );
    // Assess
    console.log(
      `fight detected ${detectedMs} ms after the other controller started`
    );
    expect(s.stack.metrics.creates + s.stack.metrics.deletes).toBe(
      writesAtFence
    );
    const fence = await new DynamoOwnershipStore({
      ...s.stack.table,
      clock: systemClock,
    }).getFence(s.stack.cluster);
    expect(fence?.reason).toContain('another DaemonSet controller');
    const events = await s.admin.list<{
      reason?: string;
      involvedObject?: { name?: string };
    }>('list events', `/api/v1/namespaces/${s.ns}/events`);
    expect(events.some((e) => e.reason === CONTROLLER_CONFLICT_REASON)).toBe(
      true
    );
    const messages = s.stack.logger.lines.map((l) => l.message);
    // The DaemonSets first, then the cluster.
    expect(
      messages.indexOf('controller conflict: DaemonSet fenced')
    ).toBeLessThan(messages.indexOf('controller conflict: cluster fenced'));
    expect(messages).toContain('controller conflict: DaemonSet fenced');
    expect(messages).toContain('controller conflict: cluster fenced');
    expect(s.stack.metrics.conflicts.has(s.stack.cluster)).toBe(true);
  });

  it('after an unfence, re-syncs every DaemonSet whose changes arrived while fenced (F8)', async () => {
    // Prepare: the other controller stops; a change arrives while fenced.
    if (upstream) await stopProcess(upstream);
    upstream = undefined;
    await setAgentImage(s.admin, s.ns, 'agent:9');
    // Events of the change reach the fenced reconciler, which drops them.
    await new Promise((r) => setTimeout(r, 3_000));
    const converged = () => isConverged(s.admin, s.ns, s.nodes, 'agent:9');
    const beforeUnfence = await converged();
    const deps = {
      registry: new DynamoClusterRegistry({
        ...s.stack.table,
        clock: systemClock,
        cacheTtlMs: 0,
      }),
      ownership: new DynamoOwnershipStore({
        ...s.stack.table,
        clock: systemClock,
      }),
      health: new DynamoClusterHealthStore({
        ...s.stack.table,
        clock: systemClock,
      }),
      leases: new DynamoBridgeLeaseStore({
        ...s.stack.table,
        clock: systemClock,
      }),
      nodeIndex: new DynamoNodeIndexStore({
        ...s.stack.table,
        clock: systemClock,
      }),
      connect: () => Promise.reject(new Error('unused')),
      serverOf: () => '',
      readTextFile: () => '',
    };
    // Act: unfence, and no further event.
    const out = await runClustersCli(
      ['unfence', '--id', s.stack.cluster, '--table', s.stack.table.tableName],
      {},
      () => deps
    );
    const ms = await eventually(
      'converged after the unfence',
      converged,
      60_000
    );
    // Assess
    console.log(`re-synced ${ms} ms after the unfence`);
    expect(beforeUnfence).toBe(false);
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toContain('re-syncs every DaemonSet');
  });
});
