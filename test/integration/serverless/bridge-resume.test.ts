/**
 * The watch-bridge resumes where its last checkpoint left off, end to end:
 * a bridge that dies after receiving an event (before queueing it or
 * checkpointing) loses nothing, changes made while no bridge runs are
 * picked up, and watches whose resourceVersion is too old (410 Gone) are
 * repaired. Three DaemonSets see to it that every change wakes exactly one
 * of them, so a lost event leaves its DaemonSet unconverged (one replayed
 * event cannot mask another).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import type { ResourceVersions } from '#lib/ports/index.js';
import { createDaemonSet } from '../../testbed/kube-fixtures.js';
import { isDaemonSetConverged, livePodsOf } from './cluster-state.js';
import { deletePodOn, labelNode } from './daemon-set-fixtures.js';
import { E2eScenario } from './e2e-scenario.js';
import { expireWatchHistory } from './expire-watch-history.js';
import { BridgeKillSwitch } from './session-hooks.js';
import { eventually, type ServerlessStack } from './stack.js';
import { waitUntilQuiet } from './stack-probes.js';

/** Overwrites the stored bookmarks of the stack's cluster (bridge stopped). */
const storeVersions = async (
  stack: ServerlessStack,
  patch: ResourceVersions
): Promise<void> => {
  const { leases } = stack.wiring.bridge;
  const holder = `test-${randomUUID()}`;
  const stored = await leases.acquire(stack.cluster, holder, 10_000);
  if (stored === undefined) throw new Error('the lease is held');
  await leases.checkpoint(
    stack.cluster,
    holder,
    { ...stored, ...patch },
    10_000
  );
  await leases.release(stack.cluster, holder);
};

/** Sets label `churn` of a pod (one more event in the pods' history). */
const labelPod = (admin: KubeHttp, ns: string, pod: string, value: string) =>
  admin.request(
    `label ${pod}`,
    'PATCH',
    `/api/v1/namespaces/${ns}/pods/${pod}`,
    {
      body: JSON.stringify({ metadata: { labels: { churn: value } } }),
      contentType: 'application/merge-patch+json',
    }
  );

/** Returns the resources of the 410 repairs logged after line `from`, sorted. */
const repairsSince = (stack: ServerlessStack, from: number): string[] =>
  stack.logger.lines
    .slice(from)
    .filter((l) => l.message === 'watch expired (410); repairing')
    .map((l) => String((l.fields as { resource?: string }).resource))
    .sort();

describe('serverless runtime: watch-bridge restarts', () => {
  const bed = new E2eScenario('sls-bridge');
  /** Nodes of `a` and `b` (label pool=ab); `c` runs on every node. */
  let poolAb: string[] = [];
  let all: string[] = [];
  /** Before the bed's first node event. */
  let openedAtMs = 0;

  /** Returns whether a, b and c have converged on their nodes. */
  const allConverged = async () =>
    (await isDaemonSetConverged(bed.admin, bed.ns, 'a', poolAb)) &&
    (await isDaemonSetConverged(bed.admin, bed.ns, 'b', poolAb)) &&
    (await isDaemonSetConverged(bed.admin, bed.ns, 'c', all));

  /** Waits until no sync runs and the stack is idle. */
  const settle = () => waitUntilQuiet(bed.stack, bed.key('a'), 2_000);

  beforeAll(async () => {
    openedAtMs = systemClock.now();
    await bed.open({ nodes: 3, nodeSpec: { labels: { pool: 'ab' } } });
    poolAb = [...bed.nodes];
    all = [...bed.nodes];
    const ab = { ...bed.selector, pool: 'ab' };
    await createDaemonSet(bed.admin, bed.ns, 'a', ab);
    await createDaemonSet(bed.admin, bed.ns, 'b', ab);
    await createDaemonSet(bed.admin, bed.ns, 'c', bed.selector);
    await eventually('convergence', allConverged, 60_000);
  });

  afterAll(() => bed.close());

  it('loses no event when it dies after receiving one, nor changes made while none runs', async () => {
    // Prepare
    const { stack, admin, ns } = bed;
    await settle();
    await stack.stopBridge();
    const deps = stack.wiring.bridge;
    const { queue, leases } = deps;
    const kill = new BridgeKillSwitch(queue, leases);
    deps.queue = kill.queue;
    deps.leases = kill.leases;
    stack.startBridge();

    // Act: the bridge receives the deletion and dies before queueing it.
    kill.arm(bed.key('a'));
    await deletePodOn(admin, ns, 'a', poolAb[0] ?? '');
    await eventually(
      'the bridge to die with the deletion of a pod of a',
      async () => kill.lostKeys.includes(bed.key('a')),
      20_000
    );
    await stack.stopBridge();
    deps.queue = queue;
    deps.leases = leases;
    // Changes while no bridge runs.
    await deletePodOn(admin, ns, 'b', poolAb[1] ?? '');
    all.push(...(await bed.addNodes(1)));
    const reconciledWithoutBridge = {
      a: await isDaemonSetConverged(admin, ns, 'a', poolAb),
      b: await isDaemonSetConverged(admin, ns, 'b', poolAb),
      c: await isDaemonSetConverged(admin, ns, 'c', all),
    };
    stack.startBridge();
    const ms = await eventually(
      'convergence after the restart',
      allConverged,
      90_000
    );

    // Assess
    console.log(`converged ${ms} ms after the restart`);
    expect(kill.dead).toBe(true);
    expect(reconciledWithoutBridge).toEqual({ a: false, b: false, c: false });
    expect(
      stack.bridgeRuns.flat().filter((r) => r.outcome === 'failed').length
    ).toBeGreaterThan(0);
  });

  it('repairs a node watch answered with 410 Gone from its node index', async () => {
    // Prepare
    const { stack, admin } = bed;
    await settle();
    await stack.stopBridge();
    const logged = stack.logger.lines.length;
    await storeVersions(stack, { nodes: '1' });
    // Missed node changes: one leaves pool ab (a and b must leave it), one
    // is new (only c belongs there).
    const leaving = poolAb.pop() ?? '';
    await labelNode(admin, leaving, { pool: null });
    all.push(...(await bed.addNodes(1)));
    const churned = await expireWatchHistory(
      admin,
      '/api/v1/nodes',
      openedAtMs,
      (i) => labelNode(admin, all[0] ?? '', { churn: String(i) })
    );
    const reconciledWithoutBridge = await allConverged();

    // Act
    stack.startBridge();
    await eventually('convergence after the repair', allConverged, 90_000);

    // Assess
    console.log(`node history expired after ${churned} node events`);
    expect(reconciledWithoutBridge).toBe(false);
    expect(repairsSince(stack, logged)).toEqual(['nodes']);
  }, 360_000);

  it('repairs pod and node watches answered with 410 Gone', async () => {
    // Prepare
    const { stack, admin, ns } = bed;
    await settle();
    await stack.stopBridge();
    const logged = stack.logger.lines.length;
    await storeVersions(stack, { nodes: '1', pods: '1' });
    await deletePodOn(admin, ns, 'a', poolAb[0] ?? '');
    const joining = all[all.length - 1] ?? '';
    await labelNode(admin, joining, { pool: 'ab' });
    poolAb.push(joining);
    const [churnPod] = await livePodsOf(admin, ns, 'c');
    const churned = await expireWatchHistory(
      admin,
      '/api/v1/pods',
      openedAtMs,
      (i) => labelPod(admin, ns, churnPod?.metadata?.name ?? '', String(i))
    );
    const reconciledWithoutBridge = await allConverged();

    // Act
    stack.startBridge();
    await eventually('convergence after the repair', allConverged, 90_000);

    // Assess
    console.log(`pod history expired after ${churned} pod events`);
    expect(reconciledWithoutBridge).toBe(false);
    expect(repairsSince(stack, logged)).toEqual(['nodes', 'pods']);
  }, 360_000);
});
