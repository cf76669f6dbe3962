import { beforeEach, describe, expect, it } from 'vitest';
import { idleFleetRollout } from '#lib/fleet/fleet-rollout-state.js';
import {
  canaryBaking,
  createFleetCliBed,
  type FleetCliBed,
  T0,
} from '#test/helpers/fleet-cli-bed.js';

describe('dsr fleet pause, resume, abort and approve', () => {
  let bed: FleetCliBed;

  beforeEach(async () => {
    bed = createFleetCliBed();
    await bed.applyExample();
    await bed.store.saveState('node-agent', canaryBaking(), [], T0);
    bed.clock.step(5 * 60_000);
  });

  const controls = async () => (await bed.store.get('node-agent'))?.controls;
  const notes = async () =>
    (await bed.store.get('node-agent'))?.history.map((h) => h.note);

  it.each([
    { verb: 'pause', missing: ['pause', 'ghost'] },
    { verb: 'resume', missing: ['resume', 'ghost'] },
    { verb: 'abort', missing: ['abort', 'ghost'] },
    { verb: 'approve', missing: ['approve', 'ghost', 'rest'] },
  ])('$verb refuses a policy that does not exist', async ({ missing }) => {
    // Act
    const out = await bed.run(...missing);

    // Assess
    expect(out).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: 'error: fleetrolloutpolicy ghost not found\n',
    });
    expect(bed.wakes).toEqual([]);
  });

  describe('pause and resume', () => {
    it('pauses once, with a history line, and wakes the rollout', async () => {
      // Act
      const first = await bed.run('pause', 'node-agent');
      const again = await bed.run('pause', 'node-agent');

      // Assess
      expect(first).toEqual({
        exitCode: 0,
        stdout: 'fleetrolloutpolicy/node-agent paused\n',
        stderr: '',
      });
      expect(again.exitCode).toBe(0);
      expect(again.stdout).toBe(
        'fleetrolloutpolicy/node-agent already paused\n'
      );
      expect((await controls())?.paused).toBe(true);
      expect(await notes()).toEqual(['paused (dsr fleet pause)']);
      expect(bed.wakes).toEqual(['node-agent', 'node-agent']);
    });

    it('resumes a paused rollout, and says when it is not paused', async () => {
      // Prepare
      await bed.run('pause', 'node-agent');

      // Act
      const resumed = await bed.run('resume', 'node-agent');
      const again = await bed.run('resume', 'node-agent', '-o', 'json');

      // Assess
      expect(resumed.stdout).toBe('fleetrolloutpolicy/node-agent resumed\n');
      expect(JSON.parse(again.stdout)).toEqual({
        name: 'node-agent',
        verb: 'resume',
        changed: false,
        message: 'fleetrolloutpolicy/node-agent is not paused',
      });
      expect((await controls())?.paused).toBe(false);
      expect(await notes()).toEqual([
        'paused (dsr fleet pause)',
        'resumed (dsr fleet resume)',
      ]);
    });

    it('says the change is stored when waking the rollout fails', async () => {
      // Prepare
      bed.deps.wake = async () => {
        throw new Error('queue unreachable');
      };

      // Act
      const out = await bed.run('pause', 'node-agent');

      // Assess
      expect(out.exitCode).toBe(1);
      expect(out.stderr).toContain('run pause again to wake it');
      expect((await controls())?.paused).toBe(true);
    });
  });

  describe('abort', () => {
    it('stamps the rollout under way once', async () => {
      // Act
      const first = await bed.run('abort', 'node-agent');
      const again = await bed.run('abort', 'node-agent');

      // Assess
      expect(first.stdout).toBe('fleetrolloutpolicy/node-agent aborted\n');
      expect(again.stdout).toBe(
        'fleetrolloutpolicy/node-agent already aborted\n'
      );
      expect((await controls())?.abortedAtMs).toBe(T0 + 5 * 60_000);
      expect(await notes()).toEqual([
        'aborted (dsr fleet abort): every cluster stays where it is',
      ]);
    });

    it('aborts again once a newer rollout has started', async () => {
      // Prepare
      await bed.run('abort', 'node-agent');
      bed.clock.step(60_000);
      await bed.store.saveState(
        'node-agent',
        { ...canaryBaking(), startedAtMs: bed.clock.now() },
        [],
        bed.clock.now()
      );

      // Act
      const out = await bed.run('abort', 'node-agent');

      // Assess
      expect(out.stdout).toBe('fleetrolloutpolicy/node-agent aborted\n');
      expect((await controls())?.abortedAtMs).toBe(bed.clock.now());
    });

    it('refuses when no rollout is under way', async () => {
      // Prepare
      await bed.store.saveState('node-agent', idleFleetRollout(), [], T0);

      // Act
      const out = await bed.run('abort', 'node-agent');

      // Assess
      expect(out.exitCode).toBe(1);
      expect(out.stderr).toBe(
        'error: fleetrolloutpolicy node-agent has no rollout under way (phase Idle): nothing to abort\n'
      );
      expect((await controls())?.abortedAtMs).toBeUndefined();
      expect(bed.wakes).toEqual([]);
    });
  });

  describe('approve', () => {
    it('approves a manual wave of the rollout under way once', async () => {
      // Act
      const first = await bed.run('approve', 'node-agent', 'rest');
      const again = await bed.run('approve', 'node-agent', 'rest');

      // Assess
      expect(first.stdout).toBe(
        'fleetrolloutpolicy/node-agent wave rest approved\n'
      );
      expect(again.stdout).toBe(
        'fleetrolloutpolicy/node-agent wave rest already approved\n'
      );
      expect((await controls())?.approvedAtMs).toEqual({
        rest: T0 + 5 * 60_000,
      });
      expect(await notes()).toEqual(['wave rest approved (dsr fleet approve)']);
      expect(bed.wakes).toEqual(['node-agent', 'node-agent']);
    });

    it('approves again for a rollout that started after the approval', async () => {
      // Prepare
      await bed.store.setControls(
        'node-agent',
        { approvedAtMs: { rest: T0 } },
        'old',
        T0
      );

      // Act
      const out = await bed.run('approve', 'node-agent', 'rest');

      // Assess
      expect(out.stdout).toBe(
        'fleetrolloutpolicy/node-agent wave rest approved\n'
      );
      expect((await controls())?.approvedAtMs.rest).toBe(T0 + 5 * 60_000);
    });

    it('refuses a wave the policy does not name, naming its waves', async () => {
      // Act
      const out = await bed.run('approve', 'node-agent', 'everything');

      // Assess
      expect(out).toEqual({
        exitCode: 1,
        stdout: '',
        stderr:
          'error: fleetrolloutpolicy node-agent has no wave "everything"; its waves: canary, rest\n',
      });
      expect((await controls())?.approvedAtMs).toEqual({});
    });

    it('writes nothing for a wave that needs no approval', async () => {
      // Act
      const out = await bed.run('approve', 'node-agent', 'canary');

      // Assess
      expect(out.exitCode).toBe(0);
      expect(out.stdout).toBe(
        'fleetrolloutpolicy/node-agent wave canary needs no approval\n'
      );
      expect((await controls())?.approvedAtMs).toEqual({});
      expect(await notes()).toEqual([]);
    });

    it('refuses when no rollout is under way', async () => {
      // Prepare
      await bed.store.saveState('node-agent', idleFleetRollout(), [], T0);

      // Act
      const out = await bed.run('approve', 'node-agent', 'rest');

      // Assess
      expect(out.exitCode).toBe(1);
      expect(out.stderr).toContain(
        'has no rollout under way (phase Idle): an approval applies to the rollout under way when it is given'
      );
      expect((await controls())?.approvedAtMs).toEqual({});
    });
  });
});
