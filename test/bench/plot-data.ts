/**
 * What the suites measured, kept for the plots (`--plots DIR`): each suite
 * that ran fills its part.
 */
import type { ServerlessRun, UpstreamRun } from './converge.js';
import type { RawRun } from './raw-create.js';

/** One reader's mean cost of a steady-state sync at one node count. */
export interface ReadsPoint {
  nodes: number;
  reader: string;
  requestsPerSync: number;
  kibPerSync: number;
  p50Ms: number;
}

/** Everything the plots draw from. */
export interface BenchData {
  converge?: {
    serverless: ServerlessRun[];
    upstream: UpstreamRun[];
    /** Absent in data written before the raw contender existed. */
    raw?: RawRun[];
  };
  reads?: ReadsPoint[];
}

/** Filled by the suites as they finish. */
export const benchData: BenchData = {};

/**
 * Returns `fresh` with the parts it lacks taken from `previous`, so a run
 * of some suites keeps what the others measured before.
 */
export const mergeBenchData = (
  previous: BenchData,
  fresh: BenchData
): BenchData => ({ ...previous, ...fresh });
