/**
 * An idle cluster costs no reconcile invocations: once a DaemonSet has
 * converged and nothing changes, no message is sent, neither across the
 * handover from one watch-bridge invocation to the next (which resumes from
 * the checkpoint, replaying nothing) nor in economy mode, where every short
 * bridge run resumes and drains the watches anew.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { abortableSleep } from '#lib/bridge/abortable-sleep.js';
import { parseTimerMessage } from '#lib/workqueue/timer-message.js';
import { createAgentDaemonSet } from '../../testbed/kube-fixtures.js';
import { isConverged } from './cluster-state.js';
import { E2eScenario } from './e2e-scenario.js';
import { eventually } from './stack.js';
import { waitUntilQuiet } from './stack-probes.js';

/** Quiet this long means the last status write's echo has been synced. */
const QUIET_MS = 2_000;
/** Extra idle time after the handovers. */
const AFTER_MS = 3_000;

/**
 * Converges the agent, waits until it is quiet, then through `handovers`
 * more finished bridge runs; returns what was sent meanwhile.
 */
const idleThroughHandovers = async (bed: E2eScenario, handovers: number) => {
  const { stack, admin, ns } = bed;
  await createAgentDaemonSet(admin, ns, bed.selector);
  await eventually('convergence', () => isConverged(admin, ns, bed.nodes));
  await waitUntilQuiet(stack, bed.key(), QUIET_MS);
  const runs = stack.bridgeRuns.length;
  const invocations = stack.reconcilePoller.invocations.length;
  const timers = stack.requeuePoller.invocations.length;
  await eventually(
    `${handovers} bridge handovers`,
    async () => stack.bridgeRuns.length >= runs + handovers,
    90_000
  );
  await abortableSleep(AFTER_MS);
  const sent = stack.reconcilePoller.invocations
    .slice(invocations)
    .flatMap((i) => i.records.map((r) => r.body));
  const fired = stack.requeuePoller.invocations
    .slice(timers)
    .flatMap((i) => i.records.map((r) => parseTimerMessage(r.body).key));
  // Only this namespace: other test files' DaemonSets may still be
  // deleting, and the bridge rightly reports them (their syncs may requeue).
  const ours = (key: string) => key.split('/')[1] === ns;
  return {
    runs: stack.bridgeRuns.slice(runs).flat(),
    sent: sent.filter(ours),
    foreign: sent.filter((key) => !ours(key)),
    timers: fired.filter(ours),
  };
};

describe('serverless runtime: idle in watch mode', () => {
  const bed = new E2eScenario('sls-idle-watch');

  beforeAll(() => bed.open({ nodes: 2, stack: { bridgeWatchSeconds: 5 } }));
  afterAll(() => bed.close());

  it('sends no reconcile message across bridge handovers while nothing changes', async () => {
    // Act
    const idle = await idleThroughHandovers(bed, 2);

    // Assess
    console.log(
      `watch mode idle: ${idle.runs.length} runs, ${idle.foreign.length} foreign messages`
    );
    expect(idle.runs.length).toBeGreaterThanOrEqual(2);
    expect(idle.runs.every((r) => r.outcome === 'done')).toBe(true);
    expect(idle.sent).toEqual([]);
    expect(idle.timers).toEqual([]);
  });
});

describe('serverless runtime: idle in economy mode', () => {
  const bed = new E2eScenario('sls-idle-economy');

  beforeAll(() => bed.open({ nodes: 2, stack: { bridgeMode: 'economy' } }));
  afterAll(() => bed.close());

  it('converges and then sends no reconcile message while nothing changes', async () => {
    // Act
    const idle = await idleThroughHandovers(bed, 3);

    // Assess
    console.log(
      `economy mode idle: ${idle.runs.length} runs, ${idle.foreign.length} foreign messages`
    );
    expect(idle.runs.length).toBeGreaterThanOrEqual(3);
    expect(idle.runs.every((r) => r.outcome === 'done')).toBe(true);
    expect(idle.sent).toEqual([]);
    expect(idle.timers).toEqual([]);
  });
});

describe('serverless runtime: periodic resync', () => {
  const bed = new E2eScenario('sls-resync');

  beforeAll(() =>
    bed.open({
      nodes: 2,
      stack: { bridgeWatchSeconds: 20, bridgeResyncSeconds: 3 },
    })
  );
  afterAll(() => bed.close());

  it('queues every DaemonSet again each resync period while nothing changes', async () => {
    // Prepare
    const { stack, admin, ns } = bed;
    await createAgentDaemonSet(admin, ns, bed.selector);
    await eventually('convergence', () => isConverged(admin, ns, bed.nodes));
    await waitUntilQuiet(stack, bed.key(), QUIET_MS);
    const before = stack.reconcilePoller.invocations.length;
    // Act: idle for three resync periods.
    await abortableSleep(10_000);
    // Assess
    const resynced = stack.reconcilePoller.invocations
      .slice(before)
      .flatMap((i) => i.records.map((r) => r.body))
      .filter((key) => key === bed.key());
    expect(resynced.length).toBeGreaterThanOrEqual(2);
  });
});
