import { beforeEach, describe, expect, it } from 'vitest';
import {
  canaryBaking,
  createFleetCliBed,
  type FleetCliBed,
  NODE_AGENT_YAML,
  registered,
  T0,
} from '#test/helpers/fleet-cli-bed.js';

describe('dsr fleet apply', () => {
  let bed: FleetCliBed;

  beforeEach(() => {
    bed = createFleetCliBed();
  });

  describe('with a valid policy', () => {
    it('stores it, wakes its rollout and prints the wave plan', async () => {
      // Act
      const out = await bed.run('apply', '-f', 'node-agent.yaml');

      // Assess
      expect(out).toEqual({
        exitCode: 0,
        stdout: [
          'fleetrolloutpolicy/node-agent created',
          'wave canary (1 cluster): prod-eu-1',
          'wave rest (1 cluster, manual approval): prod-eu-2',
          'in no wave (held on their stable revision): prod-us-1',
          '',
        ].join('\n'),
        stderr: '',
      });
      const stored = await bed.store.get('node-agent');
      expect(stored?.source).toBe(NODE_AGENT_YAML);
      expect(stored?.appliedAtMs).toBe(T0);
      expect(stored?.policy.waves.map((w) => w.name)).toEqual([
        'canary',
        'rest',
      ]);
      expect(bed.wakes).toEqual(['node-agent']);
    });

    it('replaces a stored policy and keeps its rollout state and controls', async () => {
      // Prepare
      await bed.applyExample();
      await bed.store.saveState('node-agent', canaryBaking(), [], T0);
      await bed.store.setControls('node-agent', { paused: true }, 'p', T0);
      bed.files.set(
        'node-agent.yaml',
        NODE_AGENT_YAML.replace('bake: 30m', 'bake: 1h')
      );
      bed.clock.step(60_000);

      // Act
      const out = await bed.run('apply', '-f', 'node-agent.yaml');

      // Assess
      expect(out.stdout.split('\n')[0]).toBe(
        'fleetrolloutpolicy/node-agent configured'
      );
      const stored = await bed.store.get('node-agent');
      expect(stored?.policy.waves[0]?.bakeMs).toBe(3_600_000);
      expect(stored?.state).toEqual(canaryBaking());
      expect(stored?.controls.paused).toBe(true);
      expect(stored?.appliedAtMs).toBe(T0 + 60_000);
    });

    it('reads JSON as well as YAML', async () => {
      // Prepare
      const { load } = await import('js-yaml');
      bed.files.set('p.json', JSON.stringify(load(NODE_AGENT_YAML)));

      // Act
      const out = await bed.run('apply', '-f', 'p.json', '-o', 'json');

      // Assess
      expect(out.exitCode).toBe(0);
      expect(JSON.parse(out.stdout)).toEqual({
        name: 'node-agent',
        result: 'created',
        dryRun: false,
        waves: [
          { name: 'canary', approval: 'automatic', clusters: ['prod-eu-1'] },
          { name: 'rest', approval: 'manual', clusters: ['prod-eu-2'] },
        ],
        unassigned: ['prod-us-1'],
        otherKind: [],
        invalidRecords: [],
      });
    });

    it('names the selected clusters whose reconciler does not own the kind', async () => {
      // Prepare
      bed.registry.put(
        registered(
          'prod-eu-3',
          { tier: 'prod', region: 'eu' },
          'apps.dsr.dev/v1beta1'
        )
      );

      // Act
      const out = await bed.run('apply', '-f', 'node-agent.yaml');

      // Assess
      expect(out.stdout).toContain(
        'not rolled (their reconciler does not own DaemonSet): prod-eu-3\n'
      );
      expect(out.stdout).toContain('wave rest (1 cluster, manual approval)');
    });
  });

  describe('with --dry-run', () => {
    it('prints the wave plan and changes nothing', async () => {
      // Act
      const out = await bed.run('apply', '-f', 'node-agent.yaml', '--dry-run');

      // Assess
      expect(out.exitCode).toBe(0);
      expect(out.stdout).toContain(
        'fleetrolloutpolicy/node-agent created (dry run)\nwave canary (1 cluster): prod-eu-1\n'
      );
      expect(await bed.store.list()).toEqual([]);
      expect(bed.wakes).toEqual([]);
    });

    it('leaves a stored policy as it was', async () => {
      // Prepare
      await bed.applyExample();
      const before = await bed.store.get('node-agent');
      bed.files.set('b.yaml', NODE_AGENT_YAML.replace('bake: 30m', 'bake: 1h'));
      bed.clock.step(1_000);

      // Act
      const out = await bed.run('apply', '-f', 'b.yaml', '--dry-run');

      // Assess
      expect(out.stdout).toContain('configured (dry run)');
      expect(await bed.store.get('node-agent')).toEqual(before);
      expect(bed.wakes).toEqual([]);
    });
  });

  describe('refuses', () => {
    it('an invalid policy, naming every problem by field path', async () => {
      // Prepare
      bed.files.set(
        'bad.yaml',
        NODE_AGENT_YAML.replace('bake: 30m', 'bake: soon').replace(
          'approval: manual',
          'approval: maybe'
        )
      );

      // Act
      const out = await bed.run('apply', '-f', 'bad.yaml');

      // Assess
      expect(out.exitCode).toBe(1);
      expect(out.stdout).toBe('');
      const lines = out.stderr.split('\n');
      expect(lines[0]).toBe('error: bad.yaml: invalid fleet rollout policy:');
      expect(lines.filter((l) => l.startsWith('  spec.waves['))).toHaveLength(
        2
      );
      expect(out.stderr).toContain('  spec.waves[0].bake:');
      expect(out.stderr).toContain('  spec.waves[1].approval:');
      expect(await bed.store.list()).toEqual([]);
    });

    it('every problem as a document with -o json', async () => {
      // Prepare
      bed.files.set('bad.yaml', 'kind: Nope\n');

      // Act
      const out = await bed.run('apply', '-f', 'bad.yaml', '-o', 'json');

      // Assess
      expect(out.exitCode).toBe(1);
      const doc = JSON.parse(out.stderr);
      expect(doc.error).toBe('bad.yaml: invalid fleet rollout policy');
      expect(doc.problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^apiVersion: /),
          expect.stringMatching(/^kind: /),
        ])
      );
    });

    it.each([
      {
        name: 'a file it cannot read',
        file: 'missing.yaml',
        text: undefined,
        error:
          "error: cannot read missing.yaml: ENOENT: no such file or directory, open 'missing.yaml'\n",
      },
      {
        name: 'a file that is not YAML',
        file: 'x.yaml',
        text: 'a: [1\nb: 2',
        error:
          'error: x.yaml is not YAML or JSON: deficient indentation (2:1)\n',
      },
      {
        name: 'a file of two documents',
        file: 'two.yaml',
        text: `${NODE_AGENT_YAML}---\n${NODE_AGENT_YAML}`,
        error:
          'error: two.yaml holds more than one document: apply one policy per file\n',
      },
    ])('$name', async ({ file, text, error }) => {
      // Prepare
      if (text !== undefined) bed.files.set(file, text);

      // Act
      const out = await bed.run('apply', '-f', file);

      // Assess
      expect(out).toEqual({ exitCode: 1, stdout: '', stderr: error });
      expect(bed.wakes).toEqual([]);
    });

    it('a second policy for the same DaemonSet', async () => {
      // Prepare
      await bed.applyExample();
      bed.files.set(
        'twin.yaml',
        NODE_AGENT_YAML.replace('name: node-agent }', 'name: twin }')
      );

      // Act
      const out = await bed.run('apply', '-f', 'twin.yaml');

      // Assess
      expect(out.exitCode).toBe(1);
      expect(out.stderr).toBe(
        'error: fleetrolloutpolicy node-agent already targets DaemonSet kube-system/node-agent: one policy per DaemonSet\n'
      );
      expect(await bed.store.get('twin')).toBeUndefined();
    });

    it('a new target for a stored policy', async () => {
      // Prepare
      await bed.applyExample();
      bed.files.set(
        'moved.yaml',
        NODE_AGENT_YAML.replace('kube-system', 'monitoring')
      );

      // Act
      const out = await bed.run('apply', '-f', 'moved.yaml');

      // Assess
      expect(out.exitCode).toBe(1);
      expect(out.stderr).toContain(
        'fleetrolloutpolicy node-agent targets DaemonSet kube-system/node-agent; its target cannot change'
      );
      expect((await bed.store.get('node-agent'))?.policy.target.namespace).toBe(
        'kube-system'
      );
    });
  });

  it('says the policy is stored when waking its rollout fails', async () => {
    // Prepare
    bed.deps.wake = async () => {
      throw new Error('queue unreachable');
    };

    // Act
    const out = await bed.run('apply', '-f', 'node-agent.yaml');

    // Assess
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toBe(
      'error: the change to node-agent is stored, but its rollout was not woken (queue unreachable): it takes the change at its next sync; apply it again to wake it\n'
    );
    expect(await bed.store.get('node-agent')).toBeDefined();
  });
});
