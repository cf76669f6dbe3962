/**
 * End to end on the serverless runtime: a daemon pod that fails is deleted
 * and replaced, and repeated failures on one node are killed no faster than
 * upstream's failedPodsBackoff allows (1 s, 2 s, 4 s, … per node).
 *
 * The node is one KWOK leaves alone (fixed Ready conditions): KWOK's
 * pod-ready stage rewrites the status of any pod without a podIP, so on a
 * managed node a pod failed before KWOK got to it would turn Running again.
 * On this node the pods stay Pending until the test fails them through the
 * status subresource, as a kubelet would, as soon as they are bound.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoFailedPodBackoffStore } from '#lib/adapters/dynamodb/dynamo-failed-pod-backoff-store.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import type { BackoffEntry } from '#lib/reconcile/backoff-policy.js';
import { EventReason } from '#lib/reconcile/events.js';
import type { Pod } from '#lib/reconcile/k8s/types.js';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import { createAgentDaemonSet } from '../../testbed/kube-fixtures.js';
import { failPod, getAgent, livePodsByNode } from './cluster-state.js';
import { E2eScenario } from './e2e-scenario.js';
import { eventually } from './stack.js';

/** One failure: when the test failed the pod and saw its replacement. */
interface Failure {
  failedAt: number;
  replacedAt: number;
  replacement: Pod;
  entry: BackoffEntry | undefined;
}

describe('serverless runtime: failed daemon pods', () => {
  let s: E2eScenario;
  reportLogOnFailure(() => s?.stack?.logger);
  let node: string;
  let backoff: DynamoFailedPodBackoffStore;
  let current: Pod;
  const failures: Failure[] = [];

  /** Returns the one live pod of the DaemonSet once it is bound to `node`. */
  const boundPod = async (not?: string): Promise<Pod> => {
    let found: Pod | undefined;
    await eventually(
      'a bound pod',
      async () => {
        const pods = (await livePodsByNode(s.admin, s.ns)).get(node) ?? [];
        found = pods.find(
          (p) => p.metadata?.uid !== not && p.status?.phase !== 'Failed'
        );
        return found !== undefined;
      },
      60_000,
      50
    );
    return found as Pod;
  };

  /** Returns the stored failed-pod backoff entry of the node. */
  const backoffEntry = async () => {
    const ds = await getAgent(s.admin, s.ns);
    const gen = ds.status?.observedGeneration ?? 0;
    return backoff.get(`${s.stack.cluster}/${ds.metadata?.uid}/${gen}/${node}`);
  };

  /** Fails the current pod and waits for its replacement. */
  const failCurrent = async (): Promise<Failure> => {
    const failedAt = Date.now();
    await failPod(s.admin, s.ns, current.metadata?.name ?? '');
    const replacement = await boundPod(current.metadata?.uid);
    const failure: Failure = {
      failedAt,
      replacedAt: Date.now(),
      replacement,
      entry: await backoffEntry(),
    };
    failures.push(failure);
    current = replacement;
    return failure;
  };

  const failedDaemonPodEvents = async () => {
    const events = await s.admin.list<{ reason?: string }>(
      'list events',
      `/api/v1/namespaces/${s.ns}/events`
    );
    return events.filter((e) => e.reason === EventReason.FailedDaemonPod);
  };

  beforeAll(async () => {
    s = await E2eScenario.start('sls-failed', {
      nodes: 1,
      nodeSpec: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    node = s.nodes[0] ?? '';
    backoff = new DynamoFailedPodBackoffStore({
      client: s.stack.table.client,
      tableName: s.stack.table.tableName,
      clock: systemClock,
    });
    await createAgentDaemonSet(s.admin, s.ns, s.selector);
    current = await boundPod();
  });

  afterAll(async () => {
    await s?.close();
  });

  it('deletes a failed pod and creates a replacement', async () => {
    // Prepare
    const failed = current;
    // Act
    const { failedAt, replacedAt, entry } = await failCurrent();
    // Assess
    console.log(`failure 1: replaced after ${replacedAt - failedAt} ms`);
    const pods = (await livePodsByNode(s.admin, s.ns)).get(node) ?? [];
    expect(pods.map((p) => p.metadata?.uid)).not.toContain(
      failed.metadata?.uid
    );
    expect(entry?.delayMs).toBe(1_000);
    expect(await failedDaemonPodEvents()).toHaveLength(1);
  });

  it('kills repeated failures on the node 1 s, 2 s, 4 s apart', async () => {
    // Act
    for (let i = 0; i < 3; i++) await failCurrent();
    // Assess
    const delays = failures.map((f) => f.entry?.delayMs);
    const kills = failures.map((f) => f.entry?.lastUpdateMs ?? 0);
    const gaps = failures.map((f) => f.replacedAt - f.failedAt);
    const intervals = failures
      .slice(1)
      .map((f, i) => f.replacedAt - (failures[i]?.replacedAt ?? 0));
    console.log('failed pod backoff', { delays, gaps, intervals });
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000]);
    // No failed pod was killed inside the previous kill's backoff.
    for (let i = 1; i < kills.length; i++) {
      expect(kills[i]).toBeGreaterThanOrEqual(
        (kills[i - 1] ?? 0) + (delays[i - 1] ?? 0)
      );
    }
    // (The replacements' own spacing is only logged: it adds the bind
    // latency of two pods, which on a loaded machine varies by seconds.)
    expect(await failedDaemonPodEvents()).toHaveLength(4);
  });
});
