/**
 * The payload the dispatcher sends each bridge invocation, checked at the
 * door: an event that is not a turn (a console test event, an old schedule
 * still attached) fails at once with one clear line and runs nothing.
 */
import { InvalidBridgeTurnError } from '../errors.js';
import type { BridgeTurn, ClusterTurn } from '../ports/index.js';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isTime = (v: unknown): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v > 0;

/** Returns one cluster's part of a turn; throws naming what is wrong. */
const parseClusterTurn = (v: unknown, at: string): ClusterTurn => {
  if (!isRecord(v)) throw new InvalidBridgeTurnError(`${at} is not an object`);
  const { cluster, stopAtMs, after } = v;
  if (typeof cluster !== 'string' || !/^[a-z0-9.-]+$/.test(cluster)) {
    throw new InvalidBridgeTurnError(`${at}.cluster is not a cluster id`);
  }
  if (!isTime(stopAtMs)) {
    throw new InvalidBridgeTurnError(`${at}.stopAtMs is not a time`);
  }
  if (after === undefined) return { cluster, stopAtMs };
  if (
    !isRecord(after) ||
    typeof after.holder !== 'string' ||
    after.holder === '' ||
    !isTime(after.runUntilMs)
  ) {
    throw new InvalidBridgeTurnError(
      `${at}.after must hold a holder and a runUntilMs`
    );
  }
  return {
    cluster,
    stopAtMs,
    after: { holder: after.holder, runUntilMs: after.runUntilMs },
  };
};

/** Returns the event as a bridge turn; throws InvalidBridgeTurnError. */
export const parseBridgeTurn = (event: unknown): BridgeTurn => {
  if (!isRecord(event)) throw new InvalidBridgeTurnError('not an object');
  const { mode, clusters } = event;
  if (mode !== 'watch' && mode !== 'economy') {
    throw new InvalidBridgeTurnError('mode must be watch or economy');
  }
  if (!Array.isArray(clusters) || clusters.length === 0) {
    throw new InvalidBridgeTurnError('clusters must be a non-empty list');
  }
  return {
    mode,
    clusters: clusters.map((c, i) => parseClusterTurn(c, `clusters[${i}]`)),
  };
};
