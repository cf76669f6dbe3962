/**
 * End to end on the serverless runtime: pods follow node changes. Each step
 * waits for the resulting state (status and pods) and prints how long it
 * took; the bounds are only the waits' timeouts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import { createAgentDaemonSet } from '../../testbed/kube-fixtures.js';
import {
  getAgent,
  isConverged,
  livePodsByNode,
  patchNode,
} from './cluster-state.js';
import { E2eScenario } from './e2e-scenario.js';
import { eventually } from './stack.js';

/** How long a pod may take to follow a node change on the busy test bed. */
const FOLLOW_TIMEOUT_MS = 60_000;
/**
 * podgc's orphan sweep runs every 20 s and quarantines an unknown node for
 * 40 s (pkg/controller/podgc/gc_controller.go), so up to ~80 s, plus load.
 */
const PODGC_TIMEOUT_MS = 150_000;

describe('serverless runtime: node changes', () => {
  let s: E2eScenario;
  reportLogOnFailure(() => s?.stack?.logger);
  /** The nodes the DaemonSet should run on after the last step. */
  let eligible: string[] = [];

  const converged = (what: string, timeoutMs = FOLLOW_TIMEOUT_MS) =>
    eventually(what, () => isConverged(s.admin, s.ns, eligible), timeoutMs);

  beforeAll(async () => {
    s = await E2eScenario.start('sls-nodes', { nodes: 3 });
    await createAgentDaemonSet(s.admin, s.ns, s.selector);
    eligible = [...s.nodes];
    await converged('initial convergence');
  });

  afterAll(async () => {
    await s?.close();
  });

  it('runs a pod on an added node', async () => {
    // Act
    const started = Date.now();
    const [added] = await s.addNodes(1);
    const readyMs = Date.now() - started;
    eligible.push(added ?? '');
    const ms = await converged('a pod on the added node');
    // Assess
    console.log(
      `node added: node Ready after ${readyMs} ms, its pod available ${ms} ms later`
    );
    const pods = (await livePodsByNode(s.admin, s.ns)).get(added ?? '');
    expect(pods?.length).toBe(1);
    expect((await getAgent(s.admin, s.ns)).status?.desiredNumberScheduled).toBe(
      4
    );
  });

  it('deletes the pod of a node that stops matching the nodeSelector', async () => {
    // Prepare
    const node = eligible[0] ?? '';
    eligible = eligible.filter((n) => n !== node);
    // Act
    await patchNode(s.admin, node, {
      metadata: { labels: { e2e: `${s.ns}-elsewhere` } },
    });
    const ms = await converged('the relabelled node without a pod');
    // Assess
    console.log(`node relabelled: its pod gone, status current in ${ms} ms`);
    expect((await livePodsByNode(s.admin, s.ns)).has(node)).toBe(false);
    expect((await getAgent(s.admin, s.ns)).status?.desiredNumberScheduled).toBe(
      3
    );
  });

  it('deletes the pod of a node tainted NoExecute', async () => {
    // Prepare
    const node = eligible[0] ?? '';
    eligible = eligible.filter((n) => n !== node);
    // Act
    await patchNode(s.admin, node, {
      spec: {
        taints: [{ key: 'e2e/evict', value: 'yes', effect: 'NoExecute' }],
      },
    });
    const ms = await converged('the tainted node without a pod');
    // Assess
    console.log(
      `node tainted NoExecute: its pod gone, status current in ${ms} ms`
    );
    expect((await livePodsByNode(s.admin, s.ns)).has(node)).toBe(false);
    expect((await getAgent(s.admin, s.ns)).status?.desiredNumberScheduled).toBe(
      2
    );
  });

  it(
    'drops a deleted node from the status once podgc has removed its pod',
    async () => {
      // Prepare
      const node = eligible[0] ?? '';
      eligible = eligible.filter((n) => n !== node);
      // Act
      await s.deleteNode(node);
      const desiredMs = await eventually(
        'desired to drop',
        async () =>
          (await getAgent(s.admin, s.ns)).status?.desiredNumberScheduled === 1,
        PODGC_TIMEOUT_MS
      );
      const goneMs = await eventually(
        'the deleted node without a pod',
        async () => !(await livePodsByNode(s.admin, s.ns)).has(node),
        PODGC_TIMEOUT_MS
      );
      const ms = await converged('status current');
      // Assess
      console.log(
        `node deleted: desired dropped after ${desiredMs} ms, pod gone ${goneMs} ms later, status current ${ms} ms later`
      );
      expect(await isConverged(s.admin, s.ns, eligible)).toBe(true);
    },
    2 * PODGC_TIMEOUT_MS
  );
});
