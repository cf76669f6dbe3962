/**
 * Never fight another controller: with upstream's DaemonSet controller
 * started beside ours on the same cluster, the reconciler sees its writes,
 * fences the cluster within a minute (Event, metric, error line) and makes
 * no pod writes after that.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoOwnershipStore } from '#lib/adapters/dynamodb/dynamo-ownership-store.js';
import type { KubeHttp } from '#lib/adapters/kube/kube-http.js';
import { systemClock } from '#lib/adapters/memory/system-clock.js';
import { CONTROLLER_CONFLICT_REASON } from '#lib/runtime/fight-detection.js';
import {
  createAgentDaemonSet,
  createNamespace,
  createNodes,
  deleteNamespace,
  deleteNodes,
} from '../../testbed/kube-fixtures.js';
import { type Component, stopProcess } from '../../testbed/processes.js';
import { startUpstreamDaemonSetController } from '../../testbed/upstream-controller.js';
import {
  createReconcilerIdentity,
  type ReconcilerIdentity,
} from '../reconciler-identity.js';
import { adminHttp } from '../sync-loop.js';
import { isConverged, setAgentImage } from './cluster-state.js';
import { eventually, ServerlessStack } from './stack.js';

describe('serverless runtime: another DaemonSet controller in the cluster', () => {
  const ns = `sls-fight-${Date.now().toString(36)}`;
  let admin: KubeHttp;
  let identity: ReconcilerIdentity;
  let stack: ServerlessStack;
  let upstream: Component | undefined;
  let nodes: string[] = [];

  beforeAll(async () => {
    admin = adminHttp();
    await createNamespace(admin, ns);
    identity = await createReconcilerIdentity(admin, ns);
    nodes = await createNodes(admin, 3, {
      prefix: `${ns}-`,
      labels: { e2e: ns },
    });
    await createAgentDaemonSet(admin, ns, { e2e: ns });
    stack = await ServerlessStack.start({
      kubeconfigPath: identity.kubeconfigPath,
    });
    await eventually('convergence', () => isConverged(admin, ns, nodes));
  });

  afterAll(async () => {
    if (upstream) await stopProcess(upstream);
    await stack?.stop();
    await identity?.remove();
    await deleteNodes(admin, nodes);
    await deleteNamespace(admin, ns);
    admin.close();
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
    await eventually(
      'fight detection',
      async () => {
        if (stack.metrics.conflicts.has(stack.cluster)) return true;
        image++;
        await setAgentImage(admin, ns, `agent:${image}`);
        return false;
      },
      60_000,
      3_000
    );
    const detectedMs = systemClock.now() - started;
    const writesAtFence = stack.metrics.creates + stack.metrics.deletes;
    // Keep the cluster busy: nodes change, the other controller converges.
    await setAgentImage(admin, ns, 'agent:3');
    await eventually(
      'upstream rolls alone',
      () => isConverged(admin, ns, nodes, 'agent:3'),
      60_000
    );
    // Assess
    console.log(
      `fight detected ${detectedMs} ms after the other controller started`
    );
    expect(stack.metrics.creates + stack.metrics.deletes).toBe(writesAtFence);
    const fence = await new DynamoOwnershipStore({
      ...stack.table,
      clock: systemClock,
    }).getFence(stack.cluster);
    expect(fence?.reason).toContain('another DaemonSet controller');
    const events = await admin.list<{
      reason?: string;
      involvedObject?: { name?: string };
    }>('list events', `/api/v1/namespaces/${ns}/events`);
    expect(events.some((e) => e.reason === CONTROLLER_CONFLICT_REASON)).toBe(
      true
    );
    expect(
      stack.logger.lines.some(
        (l) => l.message === 'controller conflict: cluster fenced'
      )
    ).toBe(true);
  });
});
