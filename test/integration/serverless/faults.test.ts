/**
 * Faults of the reconcile side, end to end on the serverless runtime: a
 * worker that dies in the middle of its pod creates (its message comes back
 * after the visibility timeout), and messages that can never be reconciled.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageGroupIdFor } from '#lib/adapters/sqs/message-group.js';
import { createAgentDaemonSet } from '../../testbed/kube-fixtures.js';
import { isConverged } from './cluster-state.js';
import { E2eScenario } from './e2e-scenario.js';
import { KillingPodControl } from './session-hooks.js';
import { eventually } from './stack.js';
import {
  linesWith,
  PodsPerNodeSampler,
  queueDepth,
  recordsOf,
  syncsOf,
} from './stack-probes.js';

/** Nodes of the DaemonSet, and the create that kills the worker. */
const NODES = 6;
const FATAL_CREATE = 3;

describe('serverless runtime: a reconcile worker killed during its creates', () => {
  const bed = new E2eScenario('sls-kill');

  beforeAll(() => bed.open({ nodes: NODES }));
  afterAll(() => bed.close());

  it('is redelivered, creates only the missing pods and never puts two on a node', async () => {
    // Prepare
    const { stack, admin, ns } = bed;
    const key = bed.key();
    const session = await stack.wiring.sessions.get(stack.cluster);
    if (session === undefined) throw new Error('no session');
    const killer = new KillingPodControl(
      session.deps.podControl,
      FATAL_CREATE,
      () => stack.reconcilePoller.kill()
    );
    session.deps.podControl = killer;
    const sampler = PodsPerNodeSampler.start(admin, ns);

    // Act
    await createAgentDaemonSet(admin, ns, bed.selector);
    const ms = await eventually(
      'convergence after the redelivery',
      () => isConverged(admin, ns, bed.nodes),
      90_000
    );
    const pods = await sampler.stop();

    // Assess
    console.log(
      `converged in ${ms} ms; ${pods.samples} samples, at most ${pods.worst} pod(s) per node`
    );
    expect(pods.worst, JSON.stringify(pods.worstAt)).toBe(1);
    expect(pods.samples).toBeGreaterThan(10);
    const killed = stack.reconcilePoller.invocations.filter(
      (i) => i.outcome === 'killed' && i.records.some((r) => r.body === key)
    );
    expect(killed).toHaveLength(1);
    const redelivered = recordsOf(stack, key).filter(
      (r) => Number(r.attributes.ApproximateReceiveCount) >= 2
    );
    expect(redelivered.length).toBeGreaterThan(0);
    expect(
      linesWith(
        stack,
        'redelivered: the previous attempt died; dropping its expectations',
        (f) => f.daemonSet === key
      ).length
    ).toBeGreaterThan(0);
    // The dead attempt landed FATAL_CREATE - 1 pods; the finished syncs made
    // exactly the rest, none of them twice.
    const creates = syncsOf(stack, key).reduce(
      (n, s) => n + (s.creates ?? 0),
      0
    );
    expect(creates).toBe(NODES - (FATAL_CREATE - 1));
    expect(stack.metrics.poison).toBe(0);
  });
});

describe('serverless runtime: malformed messages', () => {
  const bed = new E2eScenario('sls-poison');

  beforeAll(() => bed.open({ nodes: 2 }));
  afterAll(() => bed.close());

  it('drops each with a log line naming the problem, leaves the DLQ empty and still reconciles', async () => {
    // Prepare
    const { stack, admin, ns } = bed;
    const overLong = `${stack.cluster}/${ns}/${'a'.repeat(300)}`;
    const poison = [
      { body: 'garbage', problem: /malformed/ },
      { body: 'a/b', problem: /malformed/ },
      { body: 'nope/ns/ds', problem: /unknown cluster "nope"/ },
      { body: overLong, problem: /long/ },
    ];

    // Act
    for (const { body } of poison) {
      await stack.queues.client.send(
        new SendMessageCommand({
          QueueUrl: stack.queues.work.url,
          MessageBody: body,
          MessageGroupId: messageGroupIdFor(body),
          MessageDeduplicationId: randomUUID(),
        })
      );
    }
    await createAgentDaemonSet(admin, ns, bed.selector);
    await eventually(
      'convergence',
      () => isConverged(admin, ns, bed.nodes),
      60_000
    );
    await eventually(
      'every malformed message handled and the work queue empty',
      async () =>
        poison.every(({ body }) => recordsOf(stack, body).length > 0) &&
        (await queueDepth(stack.queues.client, stack.queues.work.url)) === 0,
      60_000
    );

    // Assess
    for (const { body, problem } of poison) {
      const dropped = linesWith(
        stack,
        'dropping message',
        (f) => f.daemonSet === body.slice(0, 300)
      );
      const synced = syncsOf(stack, body.slice(0, 300));
      expect(
        dropped,
        `${body.slice(0, 60)}: ${JSON.stringify(synced)}`
      ).toHaveLength(1);
      expect(String(dropped[0]?.fields?.error)).toMatch(problem);
    }
    expect(stack.metrics.poison).toBe(poison.length);
    expect(
      await queueDepth(stack.queues.client, stack.queues.workDlq.url)
    ).toBe(0);
  });
});
