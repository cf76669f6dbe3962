/**
 * End to end on the serverless runtime: watch-bridge → SQS FIFO → reconcile
 * handler → API server, state in DynamoDB, under the least-privilege role.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/kube-http.js';
import {
  createAgentDaemonSet,
  createNamespace,
  createNodes,
  deleteNamespace,
  deleteNodes,
} from '../../testbed/kube-fixtures.js';
import {
  createReconcilerIdentity,
  type ReconcilerIdentity,
} from '../reconciler-identity.js';
import { adminHttp } from '../sync-loop.js';
import { isConverged } from './cluster-state.js';
import { eventually, ServerlessStack } from './stack.js';

describe('serverless runtime: a new DaemonSet', () => {
  const ns = `sls-new-${Date.now().toString(36)}`;
  let admin: KubeHttp;
  let identity: ReconcilerIdentity;
  let stack: ServerlessStack;
  let nodes: string[] = [];

  beforeAll(async () => {
    admin = adminHttp();
    await createNamespace(admin, ns);
    identity = await createReconcilerIdentity(admin, ns);
    nodes = await createNodes(admin, 5, {
      prefix: `${ns}-`,
      labels: { e2e: ns },
    });
    stack = await ServerlessStack.start({
      kubeconfigPath: identity.kubeconfigPath,
    });
  });

  afterAll(async () => {
    await stack?.stop();
    await identity?.remove();
    await deleteNodes(admin, nodes);
    await deleteNamespace(admin, ns);
    admin.close();
  });

  it('gets a pod on every eligible node, a complete status and a current observedGeneration', async () => {
    // Act
    await createAgentDaemonSet(admin, ns, { e2e: ns });
    // Assess
    const ms = await eventually('convergence', () =>
      isConverged(admin, ns, nodes)
    );
    console.log(`converged on 5 nodes in ${ms} ms`);
    expect(stack.metrics.syncs).toBeGreaterThan(0);
    expect(stack.metrics.poison).toBe(0);
    expect(
      stack.reconcilePoller.invocations.every((i) => i.outcome !== 'failed')
    ).toBe(true);
  });
});
