/**
 * A watch-mode cluster at its bridge hand-overs, on the emulated stack and
 * the test bed: the dispatcher launches each successor ahead of the end of
 * the run it succeeds, so the cluster's lease — and its watches — pass on
 * within about one lease poll, however far apart the dispatcher's ticks
 * are (here 4 s; a successor launched only once the lease is free would
 * leave the cluster unwatched for up to a tick). A change made across the
 * hand-overs converges.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '#lib/adapters/system-clock.js';
import { abortableSleep } from '#lib/bridge/abortable-sleep.js';
import { createAgentDaemonSet } from '../../testbed/kube-fixtures.js';
import { isConverged } from './cluster-state.js';
import { deletePodOn } from './daemon-set-fixtures.js';
import { E2eScenario } from './e2e-scenario.js';
import { eventually } from './stack.js';

const TICK_MS = 4_000;
/** Three and more hand-overs of 6-s runs. */
const OBSERVE_MS = 28_000;

describe('serverless runtime: watch hand-overs', () => {
  const bed = new E2eScenario('sls-handover');

  beforeAll(() =>
    bed.open({
      nodes: 2,
      stack: { bridgeWatchSeconds: 6, dispatchTickMs: TICK_MS },
    })
  );
  afterAll(() => bed.close());

  it('passes the lease to the successor within a poll at every hand-over, and a change across them converges', async () => {
    // Prepare
    const { stack, admin, ns } = bed;
    await createAgentDaemonSet(admin, ns, bed.selector);
    await eventually('convergence', () => isConverged(admin, ns, bed.nodes));
    const { leases } = stack.wiring.bridge;
    const holders: string[] = [];
    let unheldSinceMs: number | undefined;
    const gapsMs: number[] = [];

    // Act: watch the lease every 50 ms; delete a pod midway.
    const until = systemClock.now() + OBSERVE_MS;
    let deleted = false;
    while (systemClock.now() < until) {
      const now = systemClock.now();
      const lease = (await leases.peek([stack.cluster])).get(stack.cluster);
      const held = lease?.holder !== undefined && lease.leaseUntilMs >= now;
      if (!held) unheldSinceMs ??= now;
      if (held && unheldSinceMs !== undefined) {
        gapsMs.push(now - unheldSinceMs);
        unheldSinceMs = undefined;
      }
      if (held && lease?.holder !== holders.at(-1)) {
        holders.push(lease?.holder ?? '');
      }
      if (!deleted && now > until - OBSERVE_MS / 2) {
        deleted = true;
        await deletePodOn(admin, ns, 'agent', bed.nodes[0] ?? '');
      }
      await abortableSleep(50);
    }
    const convergedIn = await eventually('convergence after the deletion', () =>
      isConverged(admin, ns, bed.nodes)
    );

    // Assess
    console.log(
      `hand-overs: ${holders.length - 1}, unheld gaps (ms): ${gapsMs.join(', ')}; converged ${convergedIn} ms after the window`
    );
    expect(holders.length - 1).toBeGreaterThanOrEqual(3);
    // Each new holder was launched ahead, naming the run it succeeded.
    const successors = stack.bridgeTurns.flatMap((t) =>
      t.clusters.flatMap((c) => (c.after ? [c.after.holder] : []))
    );
    expect(successors.length).toBeGreaterThanOrEqual(3);
    for (const holder of holders.slice(0, -1)) {
      expect(successors).toContain(holder);
    }
    expect(Math.max(0, ...gapsMs)).toBeLessThan(1_500);
    expect(stack.bridgeRuns.flat().every((r) => r.outcome === 'done')).toBe(
      true
    );
  });
});
