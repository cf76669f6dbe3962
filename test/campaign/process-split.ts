/**
 * A campaign spread over processes (`--processes P`): each runs its share of
 * the seeds on test beds of its own, so that no one event loop carries every
 * bed's stack, checker and proxies — ten beds in one process slowed syncs
 * twentyfold and pushed them past the 5-s test timeout (session 13). The
 * parts' results are merged into one campaign's.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import type { RunResult } from './campaign-run.js';
import type { ShrunkRun } from './run-campaign.js';

/** One process's seeds: `runs` seeds from `seed`. */
export interface SeedShare {
  seed: number;
  runs: number;
}

/** Splits `runs` seeds from `seed` into `processes` consecutive shares. */
export const seedShares = (
  runs: number,
  seed: number,
  processes: number
): SeedShare[] => {
  const shares: SeedShare[] = [];
  let next = seed;
  for (let i = 0; i < processes; i++) {
    const n = Math.floor(runs / processes) + (i < runs % processes ? 1 : 0);
    if (n > 0) shares.push({ seed: next, runs: n });
    next += n;
  }
  return shares;
};

/** Flags whose values a part sets itself. */
const PART_FLAGS = new Set(['--runs', '--seed', '--processes', '--out']);

/**
 * Returns the campaign's flags for one part: the caller's (`--name value`
 * pairs) with its own seeds and summary file.
 */
export const partFlags = (
  flags: readonly string[],
  share: SeedShare,
  out: string
): string[] => {
  const kept: string[] = [];
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i] ?? '';
    const [name] = flag.split('=');
    if (PART_FLAGS.has(name ?? '')) {
      if (!flag.includes('=')) i++;
      continue;
    }
    kept.push(flag);
  }
  return [
    ...kept,
    `--runs=${share.runs}`,
    `--seed=${share.seed}`,
    '--processes=1',
    `--out=${out}`,
  ];
};

/**
 * Runs each share in a process of `entry` (this campaign's bundle), their
 * output passed through, and returns every part's results; a part that
 * wrote no summary (it crashed) fails the campaign.
 */
export const runInProcesses = async (
  entry: string,
  flags: readonly string[],
  shares: readonly SeedShare[],
  outOf: (part: number) => string
): Promise<{ results: RunResult[]; shrunk: ShrunkRun[]; failed: number[] }> => {
  const codes = await Promise.all(
    shares.map(
      (share, part) =>
        new Promise<number>((resolve) => {
          rmSync(outOf(part), { force: true });
          const child = spawn(
            process.execPath,
            [entry, ...partFlags(flags, share, outOf(part))],
            { stdio: ['ignore', 'inherit', 'inherit'] }
          );
          child.on('exit', (code) => resolve(code ?? 1));
          child.on('error', () => resolve(1));
        })
    )
  );
  const results: RunResult[] = [];
  const shrunk: ShrunkRun[] = [];
  const failed: number[] = [];
  for (const [part, code] of codes.entries()) {
    try {
      const written = JSON.parse(readFileSync(outOf(part), 'utf8')) as {
        results: RunResult[];
        shrunk: ShrunkRun[];
      };
      results.push(...written.results);
      shrunk.push(...written.shrunk);
    } catch {
      failed.push(part);
    }
    if (code !== 0 && code !== 1) failed.push(part);
  }
  return {
    results: results.sort((a, b) => a.seed - b.seed),
    shrunk,
    failed,
  };
};
