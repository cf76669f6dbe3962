/**
 * client-go's work-queue guarantees, end to end on SQS FIFO and the dirty
 * marks in DynamoDB: adds of a waiting key coalesce into one sync, an add
 * during a sync causes one more sync after it, and SQS's 5-minute
 * deduplication never swallows a later change of the same key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '#lib/adapters/system-clock.js';
import type { ClusterReader } from '#lib/ports/index.js';
import { createAgentDaemonSet } from '../../testbed/kube-fixtures.js';
import { isConverged } from './cluster-state.js';
import { E2eScenario } from './e2e-scenario.js';
import { HoldingReader } from './session-hooks.js';
import { eventually } from './stack.js';
import {
  Gate,
  isMarkedDirty,
  recordsOf,
  syncsOf,
  waitUntilQuiet,
} from './stack-probes.js';

/** Quiet this long means the last status write's echo has been synced. */
const QUIET_MS = 2_000;

/** Patches the agent's nodeSelector (null removes a label). */
const setNodeSelector = (
  bed: E2eScenario,
  selector: Record<string, string | null>
) =>
  bed.admin.request(
    'patch nodeSelector',
    'PATCH',
    `/apis/apps/v1/namespaces/${bed.ns}/daemonsets/agent`,
    {
      body: JSON.stringify({
        spec: { template: { spec: { nodeSelector: selector } } },
      }),
      contentType: 'application/merge-patch+json',
    }
  );

describe('serverless runtime: the work queue', () => {
  const bed = new E2eScenario('sls-queue');
  let poolA: string[] = [];
  let poolB: string[] = [];
  let reader: HoldingReader;
  let originalReader: ClusterReader | undefined;

  beforeAll(async () => {
    await bed.open({ nodes: 3, nodeSpec: { labels: { pool: 'a' } } });
    poolA = [...bed.nodes];
    poolB = await bed.addNodes(3, { labels: { pool: 'b' } });
    const session = await bed.stack.wiring.sessions.get(bed.stack.cluster);
    if (session === undefined) throw new Error('no session');
    originalReader = session.deps.reader;
    reader = new HoldingReader(originalReader);
    session.deps.reader = reader;
    await createAgentDaemonSet(bed.admin, bed.ns, {
      ...bed.selector,
      pool: 'a',
    });
    await eventually(
      'convergence on pool a',
      () => isConverged(bed.admin, bed.ns, poolA),
      60_000
    );
  });

  afterAll(async () => {
    const session = await bed.stack.wiring.sessions.get(bed.stack.cluster);
    if (session && originalReader) session.deps.reader = originalReader;
    await bed.close();
  });

  it('coalesces ten concurrent adds of a waiting key into one message and one sync', async () => {
    // Prepare
    const { stack } = bed;
    const key = bed.key();
    await waitUntilQuiet(stack, key, QUIET_MS);
    const syncsBefore = syncsOf(stack, key).length;
    const invocationsBefore = stack.reconcilePoller.invocations.length;

    // Act
    await Promise.all(
      Array.from({ length: 10 }, () => stack.wiring.bridge.queue.add(key))
    );
    await eventually(
      'a sync',
      async () => syncsOf(stack, key).length > syncsBefore
    );
    await waitUntilQuiet(stack, key, QUIET_MS);

    // Assess
    expect(syncsOf(stack, key).slice(syncsBefore)).toHaveLength(1);
    expect(recordsOf(stack, key, invocationsBefore)).toHaveLength(1);
  });

  it('syncs again after a sync during which the DaemonSet changed', async () => {
    // Prepare
    const { stack, admin, ns } = bed;
    const key = bed.key();
    await waitUntilQuiet(stack, key, QUIET_MS);
    const gate = new Gate();
    const held = reader.holdNext(gate, ns, 'agent');
    await stack.wiring.bridge.queue.add(key);
    await held;

    // Act: the held sync has read the old DaemonSet; change it meanwhile
    // and let the sync finish only once the bridge has queued the change
    // (well within the 5 s function timeout).
    await setNodeSelector(bed, { pool: null });
    await eventually(
      'the bridge to queue the change',
      () => isMarkedDirty(stack, key),
      3_000,
      50
    );
    const releasedAtMs = systemClock.now();
    gate.open();
    await eventually(
      'convergence on both pools',
      () => isConverged(admin, ns, [...poolA, ...poolB]),
      60_000
    );

    // Assess
    const later = reader.reads.filter(
      (r) => r.path === `${ns}/agent` && r.atMs > releasedAtMs
    );
    expect(later.length).toBeGreaterThan(0);
    expect(
      stack.reconcilePoller.invocations.every((i) => i.outcome !== 'killed')
    ).toBe(true);
  });

  it('reconciles two changes of one key made more than a sync apart within five minutes', async () => {
    // Prepare
    const { stack, admin, ns } = bed;
    const key = bed.key();
    await waitUntilQuiet(stack, key, QUIET_MS);
    const firstChangeAt = stack.reconcilePoller.invocations.length;

    // Act (the waits' timeouts keep both changes well within SQS's
    // 5-minute deduplication interval)
    await setNodeSelector(bed, { pool: 'a' });
    await eventually(
      'convergence on pool a',
      () => isConverged(admin, ns, poolA),
      60_000
    );
    await waitUntilQuiet(stack, key, QUIET_MS);
    const secondChangeAt = stack.reconcilePoller.invocations.length;
    await setNodeSelector(bed, { pool: 'b' });
    await eventually(
      'convergence on pool b',
      () => isConverged(admin, ns, poolB),
      60_000
    );

    // Assess: messages of the same body, each delivered after the one
    // before had been deleted.
    expect(recordsOf(stack, key, firstChangeAt).length).toBeGreaterThan(1);
    expect(recordsOf(stack, key, secondChangeAt).length).toBeGreaterThan(0);
    expect(syncsOf(stack, key).every((s) => s.outcome === 'synced')).toBe(true);
  });
});
