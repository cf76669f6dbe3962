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
import { shrinkRun } from './shrink.js';

/** What a campaign runs. */
export interface CampaignOptions
  extends Omit<RunOptions, 'seed' | 'plan' | 'actions' | 'faultFree'> {
  runs: number;
  seed: number;
  /** Re-runs spent shrinking each violating run (0: none). */
  shrinkBudget: number;
  /** Stop starting runs after this long (ms). */
  deadlineMs?: number;
}

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
  let next = 0;
  const worker = async (bed: CampaignBed) => {
    while (next < o.runs && Date.now() < deadline) {
      const seed = o.seed + next++;
      const result = await runCampaignRun(bed, { ...o, seed });
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

/** One line per run. */
export const describeRun = (r: RunResult): string => {
  const faults = Object.entries(r.injected)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const verdict =
    r.violations.length === 0
      ? `ok, converged ${((r.convergeMs ?? 0) / 1000).toFixed(1)} s after faults stopped`
      : `VIOLATED ${r.violations.map((v) => `${v.invariant} (${v.detail})`).join('; ')}`;
  return `seed ${r.seed}: ${verdict}; ${r.plan.windows.length} windows, ${r.actions.length} actions; faults: ${faults || 'none'}; ${r.cost.apiRequests} API requests, ${r.cost.dynamodbCalls} DynamoDB calls; wall ${(r.wallMs / 1000).toFixed(1)} s`;
};
