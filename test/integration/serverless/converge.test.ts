/**
 * End to end on the serverless runtime: watch-bridge → SQS FIFO → reconcile
 * handler → API server, state in DynamoDB, under the least-privilege role.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import { createAgentDaemonSet } from '../../testbed/kube-fixtures.js';
import { isConverged } from './cluster-state.js';
import { E2eScenario } from './e2e-scenario.js';
import { eventually } from './stack.js';

describe('serverless runtime: a new DaemonSet', () => {
  let s: E2eScenario;
  reportLogOnFailure(() => s?.stack?.logger);

  beforeAll(async () => {
    s = await E2eScenario.start('sls-new', { nodes: 5 });
  });

  afterAll(async () => {
    await s?.close();
  });

  it('gets a pod on every eligible node, a complete status and a current observedGeneration', async () => {
    // Act
    await createAgentDaemonSet(s.admin, s.ns, s.selector);
    // Assess
    const ms = await eventually('convergence', () =>
      isConverged(s.admin, s.ns, s.nodes)
    );
    console.log(`converged on 5 nodes in ${ms} ms`);
    expect(s.stack.metrics.syncs).toBeGreaterThan(0);
    expect(s.stack.metrics.poison).toBe(0);
    expect(
      s.stack.reconcilePoller.invocations.every((i) => i.outcome !== 'failed')
    ).toBe(true);
  });
});
