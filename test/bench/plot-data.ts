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

/** Returns `fresh` plus the `previous` entries at node counts `fresh` lacks. */
const byNodes = <T extends { nodes: number }>(
  previous: readonly T[] | undefined,
  fresh: readonly T[] | undefined
): T[] => {
  const measured = new Set((fresh ?? []).map((r) => r.nodes));
  return [
    ...(previous ?? []).filter((r) => !measured.has(r.nodes)),
    ...(fresh ?? []),
  ].sort((a, b) => a.nodes - b.nodes);
};

/**
 * Returns `fresh` with what it lacks taken from `previous`: the parts of
 * suites that did not run, and, per contender, the node counts this run did
 * not measure (a 5,000-node run adds to the 100- and 1,000-node data).
 */
export const mergeBenchData = (
  previous: BenchData,
  fresh: BenchData
): BenchData => {
  const merged: BenchData = { ...previous, ...fresh };
  if (previous.converge && fresh.converge) {
    merged.converge = {
      serverless: byNodes(
        previous.converge.serverless,
        fresh.converge.serverless
      ),
      upstream: [
        ...previous.converge.upstream.filter(
          (p) =>
            !fresh.converge?.upstream.some(
              (f) => f.nodes === p.nodes && f.qps === p.qps
            )
        ),
        ...fresh.converge.upstream,
      ].sort((a, b) => a.nodes - b.nodes || a.qps - b.qps),
      raw: byNodes(previous.converge.raw, fresh.converge.raw),
    };
  }
  if (previous.reads && fresh.reads) {
    const measured = new Set(fresh.reads.map((r) => r.nodes));
    merged.reads = [
      ...previous.reads.filter((r) => !measured.has(r.nodes)),
      ...fresh.reads,
    ];
  }
  return merged;
};
