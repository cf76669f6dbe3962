/**
 * The operator's hands on a fleet rollout, end to end on four real
 * control planes under one stack: `dsr fleet rollback` sets a halted
 * canary's template back to its stable revision, a newer template applied
 * mid-rollout supersedes the one rolling, a node added to a held cluster
 * gets the stable revision until its wave, and `dsr fleet abort` holds
 * every cluster where it is.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNodes } from '#lib/local-cluster/simulated-nodes.js';
import { getTargetNodeName } from '#lib/reconcile/k8s/node-affinity.js';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import { isConverged } from './cluster-state.js';
import {
  EVERY_NODE,
  FleetBed,
  type Member,
  NODES,
  pause,
} from './fleet-bed.js';
import { eventually } from './stack.js';

describe('serverless runtime: fleet rollout controls across four clusters', () => {
  let bed: FleetBed;
  reportLogOnFailure(() => bed?.s?.stack?.logger);

  beforeAll(async () => {
    bed = await FleetBed.start('sls-fleet-ctl');
    await bed.converged('agent:1');
  }, 300_000);

  afterAll(async () => {
    await bed?.close();
  });

  /** How many pods of `image` the members after the canary run, in all. */
  const laterPodsOf = async (image: string) =>
    (await bed.podsOfImage(image)).slice(1).reduce((a, b) => a + b, 0);

  const canary = (): Member => bed.members[0] as Member;

  it('rolls a halted canary back to its stable revision, and no later wave moves', async () => {
    // Prepare: the policy pins every member on agent:1; GitOps applies a
    // crashing image everywhere; the canary halts the rollout.
    const applied = await bed.fleet(['apply', '-f', await bed.writePolicy()]);
    expect(applied).toMatchObject({ exitCode: 0, stderr: '' });
    await eventually(
      'every member pinned',
      async () => Object.keys((await bed.state())?.stable ?? {}).length === 4,
      60_000,
      200
    );
    await bed.applyEverywhere('agent:crash');
    let laterBad = 0;
    await eventually(
      'the rollout halted',
      async () => {
        await bed.breakPods(canary(), 'agent:crash', 'CrashLoopBackOff');
        laterBad += await laterPodsOf('agent:crash');
        return (await bed.state())?.phase === 'Halted';
      },
      120_000,
      200
    );
    const id = canary().id;
    const stable = (await bed.state())?.stable[id];
    // The operator's kubeconfig: the reconciler's own may not write it.
    const rollback = (...more: string[]) =>
      bed.fleet([
        'rollback',
        'agent',
        id,
        '--kubeconfig',
        inject('kubeconfigPath'),
        ...more,
      ]);

    // Act
    const dryRun = await rollback('--dry-run');
    await pause(2_000);
    const afterDryRun = await bed.podsOfImage('agent:1');
    const rolledBack = await rollback();
    expect(rolledBack).toEqual({
      exitCode: 0,
      stdout: `fleetrolloutpolicy/agent cluster ${id} rolled back to the stable revision ${stable}\n`,
      stderr: '',
    });
    await eventually(
      'the canary back on agent:1',
      async () => {
        laterBad += await laterPodsOf('agent:crash');
        return isConverged(canary().http, bed.s.ns, canary().nodes, 'agent:1');
      },
      120_000,
      200
    );
    const again = await rollback();

    // Assess
    expect(dryRun).toEqual({
      exitCode: 0,
      stdout: `fleetrolloutpolicy/agent cluster ${id} rolled back to the stable revision ${stable} (server dry run)\n`,
      stderr: '',
    });
    expect(afterDryRun).toEqual([0, NODES, NODES, NODES]);
    expect(again.stdout).toBe(
      `fleetrolloutpolicy/agent cluster ${id} already has the template of the stable revision ${stable}\n`
    );
    expect(laterBad).toBe(0);
    expect(await bed.podsOfImage('agent:1')).toEqual(EVERY_NODE);
    const state = await bed.state();
    expect(state?.phase).toBe('Halted');
    expect(state?.target[id]).toBeUndefined();
    const history = await bed.fleet(['history', 'agent']);
    expect(history.stdout).toContain(
      `${id}: template rolled back to the stable revision ${stable}`
    );
  }, 400_000);

  it('starts over on a newer template applied while the canary bakes: no later wave gets the older one', async () => {
    // Prepare: the canary bakes 20 s, time to change one's mind.
    await bed.fleet([
      'apply',
      '-f',
      await bed.writePolicy({}, { bake: '20s' }),
    ]);
    await bed.applyEverywhere('agent:3');
    await eventually(
      'the canary on agent:3',
      () => isConverged(canary().http, bed.s.ns, canary().nodes, 'agent:3'),
      120_000,
      200
    );

    // Act
    await bed.applyEverywhere('agent:4');
    let laterOlder = 0;
    await eventually(
      'the rollout of agent:4 done',
      async () => {
        laterOlder += await laterPodsOf('agent:3');
        return (await bed.state())?.phase === 'Done';
      },
      240_000,
      200
    );

    // Assess
    expect(laterOlder).toBe(0);
    expect(await bed.podsOfImage('agent:4')).toEqual(EVERY_NODE);
    const state = await bed.state();
    expect(state?.supersededAtMs).toBeGreaterThanOrEqual(
      state?.startedAtMs ?? Number.POSITIVE_INFINITY
    );
    const status = await bed.fleet(['status', 'agent']);
    expect(status.stdout).toMatch(/Superseded/);
    const history = await bed.fleet(['history', 'agent']);
    expect(history.stdout).toContain('superseded:');
  }, 400_000);

  it('gives a node added mid-rollout the stable revision until its cluster’s wave', async () => {
    // Prepare: agent:4 is stable everywhere; the canary bakes 20 s.
    const last = bed.members[3] as Member;
    await bed.applyEverywhere('agent:8');
    await eventually(
      'the canary on agent:8',
      () => isConverged(canary().http, bed.s.ns, canary().nodes, 'agent:8'),
      120_000,
      200
    );

    // Act: a node joins a cluster of the last wave while the canary bakes.
    const [late] = await createNodes(last.http, 1, {
      prefix: 'late-',
      labels: bed.s.selector,
    });
    last.nodes.push(late as string);
    const imageOnLate = async () =>
      (await bed.pods(last)).find((p) => getTargetNodeName(p) === late)?.spec
        ?.containers[0]?.image;
    await eventually(
      'a pod on the late node',
      async () => (await imageOnLate()) !== undefined,
      60_000,
      200
    );
    const whileHeld = await imageOnLate();
    const phaseWhileHeld = (await bed.state())?.clusters[last.id]?.phase;
    await eventually(
      'the rollout of agent:8 done',
      async () => (await bed.state())?.phase === 'Done',
      240_000,
      200
    );

    // Assess
    expect(whileHeld).toBe('agent:4');
    expect(phaseWhileHeld ?? 'Pending').toBe('Pending');
    await bed.converged('agent:8');
    expect(await imageOnLate()).toBe('agent:8');
  }, 400_000);

  it('holds every cluster where it is once aborted', async () => {
    // Prepare
    const before = (await bed.state())?.startedAtMs ?? 0;
    await bed.applyEverywhere('agent:5');
    await eventually(
      'the canary done on agent:5',
      async () => {
        const state = await bed.state();
        return (
          (state?.startedAtMs ?? 0) > before &&
          state?.clusters[canary().id]?.phase === 'Done'
        );
      },
      120_000,
      200
    );

    // Act
    const aborted = await bed.fleet(['abort', 'agent']);
    const history = await bed.fleet(['history', 'agent']);
    expect(aborted, history.stdout).toEqual({
      exitCode: 0,
      stdout: 'fleetrolloutpolicy/agent aborted\n',
      stderr: '',
    });
    await eventually(
      'the rollout aborted',
      async () => (await bed.state())?.phase === 'Aborted',
      60_000,
      200
    );
    await pause(25_000);

    // Assess: past the canary's bake, nothing moved.
    expect(await bed.podsOfImage('agent:5')).toEqual([NODES, 0, 0, 0]);
    const status = await bed.fleet(['status', 'agent']);
    expect(status.stdout).toMatch(/Aborted/);
  }, 300_000);
});
