/**
 * One suite of behaviour on both wirings: the local run (`npm start`'s
 * LocalRuntime on the cached connection) and the AWS wiring (the serverless
 * stack). Each case waits for the resulting state and prints how long it
 * took, so the two can be compared and cannot drift apart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRequestBudget } from '#lib/adapters/memory/memory-request-budget.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { createNodes } from '#lib/local-cluster/simulated-nodes.js';
import type { ClusterRecord } from '#lib/ports/index.js';
import type { Pod } from '#lib/reconcile/k8s/types.js';
import {
  createLocalConnector,
  LocalRuntime,
} from '#lib/wiring/local-runtime.js';
import { reportLogOnFailure } from '../helpers/failure-report.js';
import { FakeLogger } from '../helpers/fakes/fake-logger.js';
import { createAgentDaemonSet } from '../testbed/kube-fixtures.js';
import {
  deletePod,
  getAgent,
  isConverged,
  isPodAvailable,
  livePodsOf,
  setAgentImage,
} from './serverless/cluster-state.js';
import { labelNode } from './serverless/daemon-set-fixtures.js';
import { E2eScenario, type RunningProduct } from './serverless/e2e-scenario.js';
import { eventually } from './serverless/stack.js';

/** How long one step may take on the busy 2-core test bed. */
const STEP_TIMEOUT_MS = 30_000;

/** `npm start`'s product on the scenario's identity, as functions/local.ts builds it. */
const startLocalRun = async (
  kubeconfigPath: string
): Promise<RunningProduct> => {
  const logger = new FakeLogger();
  const record: ClusterRecord = {
    id: 'local',
    endpoint: '',
    caData: '',
    auth: { type: 'kubeconfig', path: kubeconfigPath },
    ownership: 'apps/v1',
    bridgeMode: 'watch',
  };
  const budget = new MemoryRequestBudget({ clock: systemClock });
  const connection = await createLocalConnector({ budget, logger }).connect(
    record
  );
  const runtime = new LocalRuntime({ record, connection, logger, budget });
  runtime.start();
  return {
    logger,
    stop: async () => {
      await runtime.stop();
      connection.close();
    },
  };
};

const wirings: {
  name: string;
  product?: (kubeconfigPath: string) => Promise<RunningProduct>;
}[] = [
  { name: 'the local run', product: startLocalRun },
  { name: 'the AWS wiring' },
];

describe.each(wirings)('behaviour on $name', ({ name, product }) => {
  let s: E2eScenario;
  reportLogOnFailure(() => s?.product?.logger);
  /** The nodes the DaemonSet should run on after the last step. */
  const eligible: string[] = [];
  const converged = (what: string, image?: string) =>
    eventually(
      what,
      () => isConverged(s.admin, s.ns, eligible, image),
      STEP_TIMEOUT_MS
    );
  const log = (line: string) => console.log(`${name}: ${line}`);

  beforeAll(async () => {
    s = await E2eScenario.start('wiring', {
      nodes: 2,
      ...(product ? { product } : {}),
    });
    eligible.push(...s.nodes);
  });

  afterAll(async () => {
    await s?.close();
  });

  it('converges a DaemonSet on every node', async () => {
    // Act
    await createAgentDaemonSet(s.admin, s.ns, s.selector);
    // Assess
    log(`converged on 2 nodes in ${await converged('convergence')} ms`);
  });

  it('runs a pod on a node that gains the selector label', async () => {
    // Prepare
    const [node = ''] = await createNodes(s.admin, 1, {
      prefix: `${s.ns}-late-`,
    });
    s.nodes.push(node);
    // Act
    await labelNode(s.admin, node, s.selector);
    eligible.push(node);
    // Assess
    log(`labelled node's pod available in ${await converged('its pod')} ms`);
  });

  it('releases a pod relabelled out of the selector and replaces it', async () => {
    // Prepare
    const [pod] = await livePodsOf(s.admin, s.ns, 'agent');
    const podName = pod?.metadata?.name ?? '';
    const path = `/api/v1/namespaces/${s.ns}/pods/${podName}`;
    const uid = (await getAgent(s.admin, s.ns)).metadata?.uid;
    // Act
    await s.admin.request('relabel pod', 'PATCH', path, {
      body: JSON.stringify({ metadata: { labels: { app: 'moved-away' } } }),
      contentType: 'application/merge-patch+json',
    });
    // Assess
    const releasedMs = await eventually(
      'the relabelled pod released',
      async () =>
        !(
          (await s.admin.request<Pod>('get pod', 'GET', path)).metadata
            ?.ownerReferences ?? []
        ).some((r) => r.uid === uid),
      STEP_TIMEOUT_MS
    );
    // Its replacement available too: the status written before the release
    // still counts every node ready while the replacement is Pending.
    const replacedMs = await eventually(
      'an available replacement',
      async () =>
        (await isConverged(s.admin, s.ns, eligible)) &&
        (await livePodsOf(s.admin, s.ns, 'agent')).every(isPodAvailable),
      STEP_TIMEOUT_MS
    );
    log(`released in ${releasedMs} ms, replaced ${replacedMs} ms later`);
    await deletePod(s.admin, s.ns, podName);
  });

  it('replaces a deleted pod', async () => {
    // Prepare
    const [victim] = await livePodsOf(s.admin, s.ns, 'agent');
    // Act
    await deletePod(s.admin, s.ns, victim?.metadata?.name ?? '');
    // Assess
    log(`deleted pod replaced in ${await converged('a replacement')} ms`);
    const uids = (await livePodsOf(s.admin, s.ns, 'agent')).map(
      (p) => p.metadata?.uid
    );
    expect(uids).not.toContain(victim?.metadata?.uid);
  });

  it('completes a rolling update', async () => {
    // Act
    await setAgentImage(s.admin, s.ns, 'agent:2');
    // Assess
    log(`rolled out in ${await converged('rollout', 'agent:2')} ms`);
    expect(await isConverged(s.admin, s.ns, eligible, 'agent:2')).toBe(true);
  });
});
