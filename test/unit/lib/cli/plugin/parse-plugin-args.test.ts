import { describe, expect, it } from 'vitest';
import { parsePluginArgs } from '#lib/cli/plugin/parse-plugin-args.js';

describe('parsePluginArgs --dry-run', () => {
  it.each([
    { name: 'none by default', argv: [], dryRun: 'none' },
    { name: 'client', argv: ['--dry-run=client'], dryRun: 'client' },
    { name: 'server', argv: ['--dry-run=server'], dryRun: 'server' },
    { name: 'none named', argv: ['--dry-run=none'], dryRun: 'none' },
    { name: 'bare, as client', argv: ['--dry-run'], dryRun: 'client' },
  ])('reads $name on every verb that writes', ({ argv, dryRun }) => {
    // Act
    const commands = [
      ['rollout', 'undo', 'advds/a'],
      ['rollout', 'pause', 'advds/a'],
      ['rollout', 'resume', 'advds/a'],
      ['rollout', 'restart', 'advds/a'],
      ['set', 'partition', 'advds/a', '2'],
      ['migrate', 'ds/a'],
    ].map((c) => parsePluginArgs([...c, ...argv]));
    // Assess
    for (const c of commands) expect(c).toMatchObject({ dryRun });
  });

  it('does not swallow the argument after a bare --dry-run', () => {
    // Act
    const c = parsePluginArgs([
      'set',
      'partition',
      '--dry-run',
      'advds/a',
      '3',
    ]);
    // Assess
    expect(c).toMatchObject({ verb: 'partition', name: 'a', value: '3' });
  });

  it.each([
    ['rollout', 'status', 'advds/a'],
    ['rollout', 'history', 'advds/a'],
    ['get'],
    ['plan', 'ns/a'],
  ])('refuses it on %s, which only reads', (...argv) => {
    // Act / Assess
    expect(() => parsePluginArgs([...argv, '--dry-run=server'])).toThrow(
      expect.objectContaining({ problems: ['unknown flag: --dry-run'] })
    );
  });

  it('refuses a value kubectl does not know', () => {
    // Act / Assess
    expect(() =>
      parsePluginArgs(['rollout', 'undo', 'advds/a', '--dry-run=true'])
    ).toThrow(
      expect.objectContaining({
        problems: [
          'invalid dry-run value (true). Must be "none", "server", or "client"',
        ],
      })
    );
  });
});

describe('parsePluginArgs rollout targets', () => {
  it('takes ds/NAME for status, history, pause and resume (the OnDelete mode)', () => {
    // Act
    const commands = ['status', 'history', 'pause', 'resume'].map((v) =>
      parsePluginArgs(['rollout', v, 'ds/agent'])
    );
    // Assess
    for (const c of commands) {
      expect(c).toMatchObject({ name: 'agent', native: true });
    }
    expect(
      parsePluginArgs(['rollout', 'status', 'advds/agent'])
    ).not.toHaveProperty('native');
  });

  it('sends undo, restart and set partition of ds/NAME where they belong', () => {
    expect(() => parsePluginArgs(['rollout', 'undo', 'ds/agent'])).toThrow(
      'kubectl rollout undo ds/agent does that for apps/v1 DaemonSets'
    );
    expect(() =>
      parsePluginArgs(['set', 'partition', 'ds/agent', '2'])
    ).toThrow(
      'the partition of an apps/v1 DaemonSet is in its apps.dsr.dev/rollout annotation, which GitOps applies: change it there'
    );
  });
});
