import { load } from 'js-yaml';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  canaryBaking,
  createFleetCliBed,
  type FleetCliBed,
  T0,
} from '#test/helpers/fleet-cli-bed.js';

describe('dsr fleet list, status and history', () => {
  let bed: FleetCliBed;

  beforeEach(async () => {
    bed = createFleetCliBed();
  });

  describe('list', () => {
    it('says when there is no policy', async () => {
      // Act
      const out = await bed.run('list');

      // Assess
      expect(out.stdout).toBe('no fleet rollout policies\n');
    });

    it('prints a row per policy, with a control its sync has not taken', async () => {
      // Prepare
      await bed.applyExample();
      await bed.store.saveState(
        'node-agent',
        {
          ...canaryBaking(),
          clusters: {
            'prod-eu-1': { phase: 'Done', step: 1 },
            'prod-eu-2': { phase: 'Failed', step: 0, reason: 'deadline' },
          },
          waveDoneAtMs: { canary: T0 + 60_000 },
        },
        [],
        T0
      );
      await bed.run('pause', 'node-agent');
      bed.clock.step(40 * 60_000);

      // Act
      const out = await bed.run('list');

      // Assess
      expect(out.stdout.split('\n')).toEqual([
        'NAME         TARGET                      PHASE                   WAVE              CLUSTERS   FAILED   AGE',
        'node-agent   ds/kube-system/node-agent   Progressing (pausing)   rest (approval)   1/2        1        40m',
        '',
      ]);
    });

    it.each([
      { name: 'waits for approval', at: 35, wave: 'rest (approval)' },
      { name: 'bakes after its last cluster', at: 20, wave: 'canary (baking)' },
    ])('shows the wave that $name', async ({ at, wave }) => {
      // Prepare
      await bed.applyExample();
      await bed.store.saveState(
        'node-agent',
        { ...canaryBaking(), waveDoneAtMs: { canary: T0 } },
        [],
        T0
      );
      bed.clock.step(at * 60_000);

      // Act
      const out = await bed.run('list', '-o', 'json');

      // Assess
      expect(JSON.parse(out.stdout).rollouts[0]).toMatchObject({
        name: 'node-agent',
        phase: 'Progressing',
        wave,
        done: 0,
        clusters: 2,
      });
    });
  });

  describe('status', () => {
    beforeEach(async () => {
      await bed.applyExample();
      await bed.store.saveState('node-agent', canaryBaking(), [], T0);
      bed.clock.step(5 * 60_000);
    });

    it('refuses a policy that does not exist', async () => {
      // Act
      const out = await bed.run('status', 'ghost');

      // Assess
      expect(out.exitCode).toBe(1);
      expect(out.stderr).toBe('error: fleetrolloutpolicy ghost not found\n');
    });

    it('prints each wave and each cluster with its step, reason and revisions', async () => {
      // Act
      const out = await bed.run('status', 'node-agent');

      // Assess
      expect(out.exitCode).toBe(0);
      expect(out.stdout.split('\n')).toEqual([
        'Name:        node-agent',
        'Target:      DaemonSet kube-system/node-agent',
        'Phase:       Progressing',
        'Applied:     2026-01-01T00:00:00Z (5m ago)',
        'Started:     2026-01-01T00:00:01Z (4m59s ago)',
        'Controls:    none',
        'Waves:',
        '  canary: approval automatic; bake 30m',
        '    CLUSTER     PHASE    STEP                STABLE   TARGET   REASON',
        '    prod-eu-1   Baking   2/2 (partition 0)   rev-1    rev-2    step 2 of 2 bakes for 10m',
        '  rest: approval waits for dsr fleet approve; bake 0s',
        '    CLUSTER     PHASE     STEP   STABLE   TARGET   REASON',
        '    prod-eu-2   Pending   -      rev-1    rev-2    held until its wave starts',
        'In no wave (held on their stable revision):',
        '    CLUSTER     PHASE   STEP   STABLE   TARGET   REASON',
        '    prod-us-1   -       -      rev-1    -        on the stable revision',
        '',
      ]);
    });

    it('gives the same facts as one document with -o yaml', async () => {
      // Prepare
      await bed.run('approve', 'node-agent', 'rest');
      bed.registry.remove('prod-us-1');

      // Act
      const out = await bed.run('status', 'node-agent', '-o', 'yaml');

      // Assess
      const doc = load(out.stdout) as Record<string, unknown>;
      expect(doc).toMatchObject({
        name: 'node-agent',
        phase: 'Progressing',
        startedAt: '2026-01-01T00:00:01Z',
        controls: {
          paused: false,
          approvedAt: { rest: '2026-01-01T00:05:00Z' },
        },
        waves: [
          {
            name: 'canary',
            clusters: [
              {
                id: 'prod-eu-1',
                phase: 'Baking',
                step: '2/2 (partition 0)',
                stable: 'rev-1',
                target: 'rev-2',
              },
            ],
          },
          {
            name: 'rest',
            approval: 'approved 2026-01-01T00:05:00Z',
            clusters: [{ id: 'prod-eu-2', phase: 'Pending' }],
          },
        ],
        unassigned: [],
        noLongerCovered: [{ id: 'prod-us-1', stable: 'rev-1' }],
      });
    });

    it('says why the rollout halted', async () => {
      // Prepare
      await bed.store.saveState(
        'node-agent',
        {
          ...canaryBaking(),
          phase: 'Halted',
          haltReason: '1 clusters failed (budget 0): prod-eu-1',
          waveDoneAtMs: { canary: T0 },
        },
        [],
        T0
      );

      // Act
      const out = await bed.run('status', 'node-agent');

      // Assess
      expect(out.stdout).toContain(
        'Halt reason: 1 clusters failed (budget 0): prod-eu-1\n'
      );
      expect(out.stdout).toContain(
        '  canary: approval automatic; bake 30m: baking, 25m left\n'
      );
    });
  });

  describe('history', () => {
    it('prints each entry with its time, oldest first', async () => {
      // Prepare
      await bed.applyExample();
      await bed.store.saveState(
        'node-agent',
        canaryBaking(),
        ['rollout started: prod-eu-1 shows revision rev-2'],
        T0 + 1_000
      );
      bed.clock.step(60_000);
      await bed.run('pause', 'node-agent');

      // Act
      const text = await bed.run('history', 'node-agent');
      const json = await bed.run('history', 'node-agent', '-o', 'json');

      // Assess
      expect(text.stdout).toBe(
        [
          '2026-01-01T00:00:01Z  rollout started: prod-eu-1 shows revision rev-2',
          '2026-01-01T00:01:00Z  paused (dsr fleet pause)',
          '',
        ].join('\n')
      );
      expect(JSON.parse(json.stdout).history[1]).toEqual({
        at: '2026-01-01T00:01:00Z',
        note: 'paused (dsr fleet pause)',
      });
    });

    it('refuses a policy that does not exist', async () => {
      // Act
      const out = await bed.run('history', 'ghost');

      // Assess
      expect(out.stderr).toBe('error: fleetrolloutpolicy ghost not found\n');
    });
  });
});
