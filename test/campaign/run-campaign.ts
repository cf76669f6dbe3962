/**
 * Runs a campaign: seeds `seed … seed + runs - 1`, spread over `parallel`
 * test beds, each violating run shrunk; returns every result.
 */

import {
  type CampaignBed,
  type RunOptions,
  type RunResult,
  runCampaignRun,
} from './campaign-run.js';
import type { Violation } from './checker/invariant-checker.js';
import { grownKinds } from './dynamodb-call-kinds.js';
import type { RunCost } from './run-types.js';
import { shrinkRun } from './shrink.js';

/** What a campaign runs. */
export interface CampaignOptions
  extends Omit<RunOptions, 'seed' | 'plan' | 'actions' | 'faultFree'> {
  runs: number;
  seed: number;
  /** Runs of each seed (default 1); `runs` counts seeds. */
  repeat?: number;
  /**
   * Fault-free runs per test bed first, not counted: the first runs of a
   * fresh process run cold (Node's JIT, DynamoDB Local's JVM), and ten of
   * them at once slowed syncs past the 5-s test timeout (seed 50800); one
   * round was not enough (seed 90800: the first counted runs took 46–58 s
   * of wall time, later ones 38–46 s).
   */
  warmUpRounds?: number;
  /**
   * The most wall time a run of the last warm-up round may take (ms): a
   * machine too loaded for its beds makes syncs outrun the 5-s test
   * timeout, and its violations are the harness's (session 17: 10 beds
   * took 81–112 s there and reported four such; 6 beds, 42–46 s, none).
   */
  maxWarmUpWallMs?: number;
  /** Re-runs spent shrinking each violating run (0: none). */
  shrinkBudget: number;
  /** Stop starting runs after this long (ms). */
  deadlineMs?: number;
  /** Stop after the first violating run. */
  stopAtViolation?: boolean;
  /**
   * Also run each seed without faults and require the faulty run's API
   * requests, SQS and DynamoDB calls within this factor of it (the cost
   * invariant); undefined: no baseline runs.
   */
  costFactor?: number;
}

/** For DynamoDB, the kinds of call that grew most. */
const grownDetail = (
  what: keyof RunCost,
  run: RunCost,
  baseline: RunCost
): string =>
  what === 'dynamodbCalls'
    ? `; grew most: ${grownKinds(run.dynamodbCallKinds, baseline.dynamodbCallKinds).join(', ')}`
    : '';

/** Returns the cost violations of `run` against its fault-free `baseline`. */
export const costViolations = (
  run: RunResult,
  baseline: RunResult,
  factor: number
): Violation[] =>
  (['apiRequests', 'sqsCalls', 'dynamodbCalls'] as const).flatMap((what) => {
    const ratio = run.cost[what] / Math.max(1, baseline.cost[what]);
    return ratio <= factor
      ? []
      : [
          {
            invariant: 'cost-within-factor' as const,
            atMs: Date.now(),
            detail: `${what} ${run.cost[what]} is ${ratio.toFixed(1)}x the fault-free run's ${baseline.cost[what]} (limit ${factor}x)${grownDetail(what, run.cost, baseline.cost)}`,
          },
        ];
  });

/**
 * Says why the machine is too loaded to count runs, when a run of the last
 * warm-up round took longer than `limitMs`; undefined when none did.
 */
export const overloadedBeds = (
  warm: readonly Pick<RunResult, 'wallMs'>[],
  limitMs: number | undefined
): string | undefined => {
  if (limitMs === undefined) return undefined;
  const slowest = Math.max(...warm.map((r) => r.wallMs));
  if (slowest <= limitMs) return undefined;
  return `the last warm-up round took up to ${(slowest / 1000).toFixed(1)} s a run (limit ${limitMs / 1000} s): this machine is too loaded for these test beds, and syncs would outrun the campaign's 5-s function timeout; run fewer (--processes, --parallel) or raise --max-warm-up-wall`;
};

/** A violating run and its shrunk reproduction. */
export interface ShrunkRun {
  result: RunResult;
  reruns: number;
}

/** Runs the campaign on `beds` (one run at a time per bed). */
export const runCampaign = async (
  beds: readonly CampaignBed[],
  o: CampaignOptions,
  report: (line: string) => void
): Promise<{ results: RunResult[]; shrunk: ShrunkRun[] }> => {
  const results: RunResult[] = [];
  const shrunk: ShrunkRun[] = [];
  const deadline =
    o.deadlineMs === undefined
      ? Number.POSITIVE_INFINITY
      : Date.now() + o.deadlineMs;
  for (let round = 1; round <= (o.warmUpRounds ?? 0); round++) {
    const warm = await Promise.all(
      beds.map((bed) => runCampaignRun(bed, { ...o, faultFree: true }))
    );
    report(
      `warm-up round ${round}: one fault-free run per test bed, not counted (wall ${warm.map((r) => (r.wallMs / 1000).toFixed(1)).join(', ')} s)`
    );
    if (round === o.warmUpRounds) {
      const tooSlow = overloadedBeds(warm, o.maxWarmUpWallMs);
      if (tooSlow !== undefined) throw new Error(tooSlow);
    }
  }
  let next = 0;
  const repeat = o.repeat ?? 1;
  const worker = async (bed: CampaignBed) => {
    const stop = () =>
      o.stopAtViolation === true &&
      results.some((r) => r.violations.length > 0);
    while (next < o.runs * repeat && Date.now() < deadline && !stop()) {
      const seed = o.seed + Math.floor(next++ / repeat);
      const result = await runCampaignRun(bed, { ...o, seed });
      if (o.costFactor !== undefined && result.error === undefined) {
        const baseline = await runCampaignRun(bed, {
          ...o,
          seed,
          faultFree: true,
        });
        result.baselineCost = baseline.cost;
        if (baseline.error !== undefined) {
          result.error = `the fault-free baseline failed: ${baseline.error}`;
        } else {
          result.violations.push(
            ...costViolations(result, baseline, o.costFactor)
          );
        }
      }
      results.push(result);
      report(describeRun(result));
      const first = result.violations[0];
      if (first === undefined || o.shrinkBudget === 0) continue;
      let smallest = result;
      const again = await shrinkRun(
        { windows: result.plan.windows, actions: result.actions },
        async (shape) => {
          const r = await runCampaignRun(bed, {
            ...o,
            seed,
            plan: { windows: shape.windows },
            actions: shape.actions,
          });
          const same = r.violations.some(
            (v) => v.invariant === first.invariant
          );
          if (same) smallest = r;
          return same;
        },
        o.shrinkBudget
      );
      shrunk.push({ result: smallest, reruns: again.reruns });
      report(
        `seed ${seed} shrunk in ${again.reruns} re-runs to ${again.shape.windows.length} fault windows and ${again.shape.actions.length} actions`
      );
    }
  };
  await Promise.all(beds.map(worker));
  return { results: results.sort((a, b) => a.seed - b.seed), shrunk };
};

/** Returns the command that replays a run (its plan follows from all of these). */
export const replayCommand = (r: RunResult): string => {
  const o = r.options;
  return [
    'npm run campaign -- --runs 1',
    `--seed ${r.seed}`,
    `--nodes ${o.nodes}`,
    `--daemon-sets ${o.daemonSets}`,
    `--fault-seconds ${o.faultMs / 1_000}`,
    `--converge-seconds ${o.convergeTimeoutMs / 1_000}`,
    ...(o.windows ? [`--windows ${o.windows[0]}-${o.windows[1]}`] : []),
    ...(o.plant ? [`--plant ${o.plant}`] : []),
    // The kind is drawn from the seed and the share; 0 or 1 pins it. Each
    // other cluster's kind is drawn the same way: those need the share.
    r.otherClusters.length === 0
      ? r.kind === 'OnDelete'
        ? '--on-delete 1'
        : `--own-kind ${r.kind === 'AdvancedDaemonSet' ? 1 : 0}`
      : `--own-kind ${o.ownKindShare ?? 0}${(o.onDeleteShare ?? 0) > 0 ? ` --on-delete ${o.onDeleteShare}` : ''} --clusters ${r.otherClusters.length + 1}`,
  ].join(' ');
};

/** One line per run. */
export const describeRun = (r: RunResult): string => {
  const faults = Object.entries(r.injected)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const verdict = r.error
    ? `HARNESS ERROR ${r.error.split('\n')[0]}`
    : r.violations.length === 0
      ? `ok, converged ${((r.convergeMs ?? 0) / 1000).toFixed(1)} s after faults stopped`
      : `VIOLATED ${r.violations.map((v) => `${v.invariant} (${v.detail})`).join('; ')}`;
  const replay =
    r.violations.length > 0 || r.error ? ` (replay: ${replayCommand(r)})` : '';
  const kinds = [r.kind, ...r.otherClusters.map((c) => c.kind)].join(', ');
  // Invocations that ran into their timeout: API latency faults, or a
  // machine too loaded for the beds (a violation in such a run may be the
  // harness's load; see reliability.md).
  const timedOut = r.containers.timedOut;
  const load = timedOut > 0 ? `; ${timedOut} invocations at their timeout` : '';
  return `seed ${r.seed} (${kinds}): ${verdict}${replay}; ${[r.plan, ...r.otherClusters.map((c) => c.plan)].map((p) => p.windows.length).join(' + ')} windows, ${r.actions.length} actions; faults: ${faults || 'none'}; ${r.cost.apiRequests} API requests, ${r.cost.dynamodbCalls} DynamoDB calls; wall ${(r.wallMs / 1000).toFixed(1)} s${load}`;
};
