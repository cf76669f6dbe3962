/**
 * The figures of a campaign: runs, faults injected by kind, violations,
 * convergence after faults stop (p50/p95/max) and wall time per run.
 */
import { markdownTable, percentile } from '../bench/markdown.js';
import type { RunResult } from './campaign-run.js';
import { FAULT_KINDS } from './fault-plan.js';

/** The campaign's totals. */
export interface CampaignSummary {
  runs: number;
  /** Runs whose DaemonSets were AdvancedDaemonSets (the rest apps/v1). */
  ownKindRuns: number;
  /** Runs of native OnDelete DaemonSets (the apps/v1+OnDelete mode). */
  onDeleteRuns: number;
  /** Clusters the runs managed (a run of `--clusters C` counts C). */
  clusters: number;
  seeds: string;
  violations: number;
  violatingSeeds: number[];
  /** Runs the harness could not carry out. */
  harnessErrors: number[];
  faults: Record<string, number>;
  convergeMs: { p50: number; p95: number; max: number };
  wallMs: { p50: number; max: number };
  containers: { started: number; killed: number; timedOut: number };
}

/** Sums the results of a campaign's runs. */
export const summarise = (results: readonly RunResult[]): CampaignSummary => {
  const faults: Record<string, number> = {};
  for (const r of results) {
    for (const [kind, n] of Object.entries(r.injected)) {
      faults[kind] = (faults[kind] ?? 0) + (n ?? 0);
    }
  }
  const converged = results.flatMap((r) =>
    r.convergeMs === undefined ? [] : [r.convergeMs]
  );
  const walls = results.map((r) => r.wallMs);
  const seeds = results.map((r) => r.seed);
  const sum = (f: (r: RunResult) => number) =>
    results.reduce((n, r) => n + f(r), 0);
  return {
    runs: results.length,
    ownKindRuns: results.filter((r) => r.kind === 'AdvancedDaemonSet').length,
    onDeleteRuns: results.filter((r) => r.kind === 'OnDelete').length,
    clusters: sum((r) => 1 + r.otherClusters.length),
    seeds:
      seeds.length === 0 ? '' : `${Math.min(...seeds)}–${Math.max(...seeds)}`,
    violations: sum((r) => r.violations.length),
    violatingSeeds: results
      .filter((r) => r.violations.length > 0)
      .map((r) => r.seed),
    harnessErrors: results
      .filter((r) => r.error !== undefined)
      .map((r) => r.seed),
    faults,
    convergeMs: {
      p50: percentile(converged, 50),
      p95: percentile(converged, 95),
      max: converged.length === 0 ? Number.NaN : Math.max(...converged),
    },
    wallMs: {
      p50: percentile(walls, 50),
      max: walls.length === 0 ? Number.NaN : Math.max(...walls),
    },
    containers: {
      started: sum((r) => r.containers.started),
      killed: sum((r) => r.containers.killed),
      timedOut: sum((r) => r.containers.timedOut),
    },
  };
};

const seconds = (ms: number) =>
  Number.isNaN(ms) ? '–' : (ms / 1000).toFixed(1);

/** Returns the summary as Markdown (the README's reliability section quotes it). */
export const summaryMarkdown = (s: CampaignSummary): string =>
  [
    `${s.runs} runs (seeds ${s.seeds}; ${s.ownKindRuns} of them AdvancedDaemonSets${s.onDeleteRuns > 0 ? `, ${s.onDeleteRuns} OnDelete` : ''}${s.clusters > s.runs ? `; ${s.clusters} clusters` : ''}), ${s.violations} violations${s.violatingSeeds.length ? ` (seeds ${s.violatingSeeds.join(', ')})` : ''}${s.harnessErrors.length ? `; harness errors in seeds ${s.harnessErrors.join(', ')}` : ''}.`,
    `Convergence after faults stop: p50 ${seconds(s.convergeMs.p50)} s, p95 ${seconds(s.convergeMs.p95)} s, max ${seconds(s.convergeMs.max)} s. Wall time per run: p50 ${seconds(s.wallMs.p50)} s, max ${seconds(s.wallMs.max)} s.`,
    `Containers: ${s.containers.started} started, ${s.containers.killed} killed (${s.containers.timedOut} at their timeout).`,
    '',
    markdownTable(
      ['fault', 'injected'],
      FAULT_KINDS.filter((k) => (s.faults[k] ?? 0) > 0).map((k) => [
        k,
        s.faults[k] ?? 0,
      ])
    ),
  ].join('\n');
