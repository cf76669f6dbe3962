/**
 * Two clusters, one stack: when one cluster's API server goes away, its keys
 * are backed off on their own (breaker open, metric, log) and the healthy
 * cluster keeps converging without added delay. No credential appears in any
 * log line of the run.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoClusterHealthStore } from '#lib/adapters/dynamodb/dynamo-cluster-health-store.js';
import { DynamoClusterRegistry } from '#lib/adapters/dynamodb/dynamo-cluster-registry.js';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { createNodes } from '#lib/local-cluster/simulated-nodes.js';
import { ControlPlane } from '../../../lib/local-cluster/control-plane.js';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import {
  createAgentDaemonSet,
  createNamespace,
} from '../../testbed/kube-fixtures.js';
import { isConverged, setAgentImage } from './cluster-state.js';
import { E2eScenario } from './e2e-scenario.js';
import { eventually } from './stack.js';

const median = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

describe('serverless runtime: cluster isolation', () => {
  const sick = `sick-${Date.now().toString(36)}`;
  let s: E2eScenario;
  reportLogOnFailure(() => s?.stack?.logger);
  let other: ControlPlane;
  let otherHttp: KubeHttp;
  let image = 1;

  /** Rolls the healthy cluster's DaemonSet to a new image; returns ms. */
  const rollHealthy = async (): Promise<number> => {
    image++;
    await setAgentImage(s.admin, s.ns, `agent:${image}`);
    return eventually(
      `rollout to agent:${image}`,
      () => isConverged(s.admin, s.ns, s.nodes, `agent:${image}`),
      60_000,
      50
    );
  };

  beforeAll(async () => {
    s = await E2eScenario.start('sls-iso', { nodes: 3 });
    await createAgentDaemonSet(s.admin, s.ns, s.selector, 'agent:1', {
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 3 },
      },
    });
    other = await ControlPlane.start({ binDir: inject('binDir') });
    otherHttp = other.http();
    await createNamespace(otherHttp, s.ns);
    await createNodes(otherHttp, 2, { prefix: 'other-', labels: s.selector });
    await createAgentDaemonSet(otherHttp, s.ns, s.selector);
    await new DynamoClusterRegistry({
      client: s.stack.table.client,
      tableName: s.stack.table.tableName,
      clock: systemClock,
    }).put({
      id: sick,
      endpoint: '',
      caData: '',
      auth: { type: 'kubeconfig', path: other.kubeconfigPath },
      ownership: 'apps/v1',
      bridgeMode: 'watch',
    });
    // The bridge picks the new cluster up on its next invocation.
    await s.stack.stopBridge();
    s.stack.startBridge();
  }, 120_000);

  afterAll(async () => {
    otherHttp?.close();
    await other?.stop();
    await s?.close();
  });

  it('backs the dead cluster off alone and keeps the healthy one as fast', async () => {
    // Prepare: both clusters converge.
    await eventually('healthy converged', () =>
      isConverged(s.admin, s.ns, s.nodes)
    );
    await eventually('sick converged', () =>
      isConverged(otherHttp, s.ns, ['other-0', 'other-1'])
    );
    const up: number[] = [];
    for (let i = 0; i < 3; i++) up.push(await rollHealthy());
    // Act: the second cluster's API server dies; its DaemonSet keeps asking.
    otherHttp.close();
    await other.stop();
    const sickKey = `${sick}/${s.ns}/agent`;
    const poke = setInterval(
      () =>
        void s.stack.wiring.bridge.queue.add(sickKey).catch(() => undefined),
      300
    );
    const down: number[] = [];
    try {
      await eventually('breaker open', async () =>
        s.stack.metrics.unhealthy.has(sick)
      );
      for (let i = 0; i < 3; i++) down.push(await rollHealthy());
    } finally {
      clearInterval(poke);
    }
    // Assess
    console.log(
      `healthy cluster rollout (3 nodes), median of 3: ${median(up)} ms with the other cluster up, ${median(down)} ms with it down`
    );
    const health = await new DynamoClusterHealthStore({
      ...s.stack.table,
      clock: systemClock,
    }).get(sick);
    expect(health?.failures).toBeGreaterThanOrEqual(1);
    expect(health?.lastError).toMatch(/ECONNREFUSED|connect|refused/i);
    const lines = s.stack.logger.lines;
    expect(
      lines.some(
        (l) =>
          l.message === 'cluster unhealthy; backing it off' &&
          (l.fields as { cluster?: string }).cluster === sick
      )
    ).toBe(true);
    expect(
      lines.some(
        (l) => l.message === 'cluster backed off; key requeued without a call'
      )
    ).toBe(true);
    expect(s.stack.metrics.unhealthy.has(s.stack.cluster)).toBe(false);
    // Bounded: the dead cluster's backoff doubles instead of retrying at once.
    const sickAttempts = lines.filter(
      (l) =>
        l.message === 'cluster unhealthy; backing it off' &&
        (l.fields as { cluster?: string }).cluster === sick
    ).length;
    expect(sickAttempts).toBeLessThan(10);
  });

  it('never writes a credential into a log line', () => {
    // Prepare
    const token = /"token":"([^"]+)"/.exec(
      readFileSync(s.kubeconfigPath, 'utf8')
    )?.[1];
    // Assess
    expect(token?.length).toBeGreaterThan(20);
    const text = JSON.stringify(s.stack.logger.lines);
    expect(text).not.toContain(token);
    expect(text).not.toMatch(
      /BEGIN (RSA |EC )?PRIVATE KEY|client-key-data|Bearer /
    );
  });
});
