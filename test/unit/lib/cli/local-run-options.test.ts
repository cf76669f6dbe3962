import { describe, expect, it } from 'vitest';
import type { RivalController } from '#lib/cli/clusters/check-ownership.js';
import {
  LOCAL_RUN_USAGE,
  parseLocalRunArgs,
  reviewLocalRunOwnership,
} from '#lib/cli/local-run-options.js';

const RIVAL: RivalController = {
  found: true,
  manager: 'kube-controller-manager',
  daemonSet: 'kube-system/kube-proxy',
  problem: 'ownership: …',
};

describe('parseLocalRunArgs', () => {
  describe('when the command line is valid', () => {
    it('runs apps/v1 on the local control plane with 5 nodes by default', () => {
      // Act
      const args = parseLocalRunArgs([]);
      // Assess
      expect(args).toEqual({
        kind: 'run',
        options: { ownership: 'apps/v1', nodes: 5, yes: false },
      });
    });

    it.each([
      { argv: ['--own-kind'], ownership: 'apps.dsr.dev/v1beta1' },
      { argv: ['--on-delete'], ownership: 'apps/v1+OnDelete' },
      {
        argv: ['--ownership', 'apps.dsr.dev/v1beta1'],
        ownership: 'apps.dsr.dev/v1beta1',
      },
      {
        argv: ['--ownership=apps/v1+OnDelete', '--on-delete'],
        ownership: 'apps/v1+OnDelete',
      },
      { argv: ['--ownership', 'apps/v1'], ownership: 'apps/v1' },
    ])('reads $argv as ownership $ownership', ({ argv, ownership }) => {
      // Act
      const args = parseLocalRunArgs(argv);
      // Assess
      expect(args).toMatchObject({ kind: 'run', options: { ownership } });
    });

    it('reads a real cluster, its context, --yes and --nodes', () => {
      // Act
      const args = parseLocalRunArgs([
        '--kubeconfig',
        '/k',
        '--context',
        'c',
        '--yes',
        '--nodes',
        '3',
      ]);
      // Assess
      expect(args).toEqual({
        kind: 'run',
        options: {
          ownership: 'apps/v1',
          kubeconfig: '/k',
          context: 'c',
          nodes: 3,
          yes: true,
        },
      });
    });

    it('asks for help with -h and --help', () => {
      expect(parseLocalRunArgs(['-h'])).toEqual({ kind: 'help' });
      expect(parseLocalRunArgs(['--own-kind', '--help'])).toEqual({
        kind: 'help',
      });
    });
  });

  describe('when the command line is wrong', () => {
    it.each([
      { argv: ['--bogus'], message: "Unknown option '--bogus'" },
      {
        argv: ['--ownership', 'apps/v2'],
        message:
          '--ownership must be one of apps/v1, apps.dsr.dev/v1beta1, apps/v1+OnDelete, not "apps/v2"',
      },
      {
        argv: ['--own-kind', '--on-delete'],
        message:
          'choose one mode, not apps.dsr.dev/v1beta1 and apps/v1+OnDelete',
      },
      {
        argv: ['--ownership', 'apps/v1', '--own-kind'],
        message: 'choose one mode, not apps/v1 and apps.dsr.dev/v1beta1',
      },
      {
        argv: ['--nodes', 'two'],
        message: '--nodes must be a whole number of at least 1, not "two"',
      },
      {
        argv: ['--nodes', '0'],
        message: '--nodes must be a whole number of at least 1, not "0"',
      },
    ])('refuses $argv in one line', ({ argv, message }) => {
      // Act
      const args = parseLocalRunArgs(argv);
      // Assess
      expect(args).toEqual({ kind: 'error', message });
    });
  });
});

describe('LOCAL_RUN_USAGE', () => {
  it('names every mode and its short flag', () => {
    // Assess
    for (const line of [
      '--ownership apps/v1 ',
      '--ownership apps.dsr.dev/v1beta1, or --own-kind',
      '--ownership apps/v1+OnDelete, or --on-delete',
    ]) {
      expect(LOCAL_RUN_USAGE).toContain(line);
    }
  });
});

describe('reviewLocalRunOwnership', () => {
  it('refuses apps/v1 beside another DaemonSet controller, naming the modes that fit', () => {
    // Act
    const review = reviewLocalRunOwnership('apps/v1', RIVAL);
    // Assess
    expect(review).toEqual({
      refusal:
        'another DaemonSet controller is active here (kube-controller-manager writes the status of kube-system/kube-proxy), and apps/v1 ownership would fight it; run with --ownership apps/v1+OnDelete (--on-delete) to roll out OnDelete DaemonSets that opt in with the apps.dsr.dev/rollout annotation, or --ownership apps.dsr.dev/v1beta1 (--own-kind) to reconcile AdvancedDaemonSets',
    });
  });

  it.each([
    { ownership: 'apps/v1+OnDelete' as const, rival: RIVAL },
    { ownership: 'apps.dsr.dev/v1beta1' as const, rival: RIVAL },
    { ownership: 'apps.dsr.dev/v1beta1' as const, rival: { found: false } },
    { ownership: 'apps/v1' as const, rival: { found: false } },
  ])(
    'lets $ownership run where found is $rival.found',
    ({ ownership, rival }) => {
      // Act
      const review = reviewLocalRunOwnership(
        ownership,
        rival as RivalController
      );
      // Assess
      expect(review).toEqual({});
    }
  );

  it('warns when OnDelete finds no controller to create its pods', () => {
    // Act
    const review = reviewLocalRunOwnership('apps/v1+OnDelete', {
      found: false,
    });
    // Assess
    expect(review.refusal).toBeUndefined();
    expect(review.warning).toBe(
      "no other DaemonSet controller was seen writing DaemonSet status; apps/v1+OnDelete needs the cluster's own controller on to create the pods"
    );
  });

  it('warns, and lets it run, when it cannot tell', () => {
    // Act
    const review = reviewLocalRunOwnership('apps/v1', {
      found: undefined,
      reason: 'could not tell',
    });
    // Assess
    expect(review).toEqual({ warning: 'could not tell' });
  });
});
