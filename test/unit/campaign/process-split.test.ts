/**
 * A campaign spread over processes: every seed runs exactly once, in
 * consecutive shares, and each part keeps the caller's flags but its own
 * seeds and summary file.
 */
import { describe, expect, it } from 'vitest';
import { partFlags, seedShares } from '../../campaign/process-split.js';

describe('seedShares', () => {
  it('splits the seeds into consecutive shares that cover each seed once', () => {
    for (const [runs, processes] of [
      [1_000, 4],
      [10, 3],
      [2, 5],
    ] as const) {
      // Act
      const shares = seedShares(runs, 500, processes);
      // Assess
      const seeds = shares.flatMap((s) =>
        Array.from({ length: s.runs }, (_, i) => s.seed + i)
      );
      expect(seeds).toEqual(Array.from({ length: runs }, (_, i) => 500 + i));
      expect(shares.length).toBe(Math.min(runs, processes));
      const sizes = shares.map((s) => s.runs);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    }
  });
});

describe('partFlags', () => {
  it("keeps the caller's flags, in either form, and sets the part's runs, seed, processes and summary file", () => {
    // Prepare
    const flags = [
      '--runs',
      '1000',
      '--seed=7',
      '--processes',
      '4',
      '--parallel',
      '2',
      '--own-kind=0.5',
      '--out',
      'x.json',
    ];
    // Act
    const part = partFlags(flags, { seed: 257, runs: 250 }, 'x.part1.json');
    // Assess
    expect(part).toEqual([
      '--parallel',
      '2',
      '--own-kind=0.5',
      '--runs=250',
      '--seed=257',
      '--processes=1',
      '--out=x.part1.json',
    ]);
  });
});
