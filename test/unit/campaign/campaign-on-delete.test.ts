/**
 * The native OnDelete kind in the campaign: which seeds run it (a share
 * drawn from a sub-stream of its own, so every other seed replays as
 * before), the controls its DaemonSets are given, and the replay command
 * pinning it.
 */
import { describe, expect, it } from 'vitest';
import { summarise } from '../../campaign/campaign-summary.js';
import { replayCommand } from '../../campaign/run-campaign.js';
import { planOf } from '../../campaign/run-types.js';
import { SeededRandom } from '../../campaign/seeded-random.js';
import {
  drawOnDeleteControls,
  promotedOnDeleteControls,
} from '../../campaign/workload-plan.js';
import { runOptions, runResult } from './run-fixtures.js';

const options = (seed: number, onDeleteShare?: number) =>
  runOptions(seed, {
    ownKindShare: 0.5,
    ...(onDeleteShare === undefined ? {} : { onDeleteShare }),
  });

const seeds = Array.from({ length: 200 }, (_, i) => 3_000 + i);

describe('planOf: the OnDelete kind', () => {
  it('draws no OnDelete run by default, and leaves every kind as it was', () => {
    // Act
    const kinds = seeds.map((s) => planOf(options(s)).kind);
    const zero = seeds.map((s) => planOf(options(s, 0)).kind);
    // Assess
    expect(kinds).not.toContain('OnDelete');
    expect(zero).toEqual(kinds);
  });

  it('draws about P of the seeds as OnDelete, the others keeping their kind, plan and workload', () => {
    // Act
    const before = seeds.map((s) => planOf(options(s)));
    const after = seeds.map((s) => planOf(options(s, 0.3)));
    // Assess
    const onDelete = after.filter((p) => p.kind === 'OnDelete').length;
    expect(onDelete).toBeGreaterThan(35);
    expect(onDelete).toBeLessThan(85);
    for (const [i, p] of after.entries()) {
      if (p.kind !== 'OnDelete') expect(p.kind).toBe(before[i]?.kind);
      expect(p.plan).toEqual(before[i]?.plan);
      expect(p.actions).toEqual(before[i]?.actions);
    }
  });
});

describe('drawOnDeleteControls', () => {
  const drawn = Array.from({ length: 300 }, (_, i) =>
    drawOnDeleteControls(new SeededRandom(i))
  );

  it('draws every control, and never a surge', () => {
    // Assess
    expect(new Set(drawn.map((c) => c.maxUnavailable))).toEqual(
      new Set([1, 2, '25%', '50%'])
    );
    expect(drawn.some((c) => c.partition !== undefined)).toBe(true);
    expect(drawn.some((c) => c.paused)).toBe(true);
    expect(drawn.some((c) => c.selector)).toBe(true);
    expect(drawn.some((c) => 'maxSurge' in c)).toBe(false);
  });

  it('is promoted to resumed, without its canary selector, keeping its budget and partition', () => {
    // Act
    const promoted = promotedOnDeleteControls({
      maxUnavailable: 2,
      partition: 1,
      paused: true,
      selector: { matchLabels: { tier: 'a' } },
    });
    // Assess
    expect(promoted).toEqual({ maxUnavailable: 2, partition: 1 });
  });
});

describe('an OnDelete run in the campaign’s output', () => {
  it('pins the kind in the replay command and counts OnDelete runs in the summary', () => {
    // Prepare
    const run = runResult(5, 'OnDelete', 0, options(5, 0.3));
    // Act
    const replay = replayCommand(run);
    const summary = summarise([run, { ...run, kind: 'DaemonSet' }]);
    // Assess
    expect(replay).toMatch(/ --on-delete 1$/);
    expect(summary.onDeleteRuns).toBe(1);
  });
});
