/**
 * Pod events that lowered expectations, counted once each: a bridge that
 * resumes from an older checkpoint (its predecessor died, or its last
 * checkpoint failed, after a batch's lowerings landed) replays those
 * events, and lowering a record twice for one event lets a sync act before
 * its creates are in its cache — a second pod on a node. Upstream's
 * informer never replays an event; here each record remembers the version
 * it was lowered through.
 */
import type { ObservedPodEvent } from '../ports/index.js';
import { parseResourceVersion } from './resource-version.js';

/** What a batch of observed pod events lowers, past a version. */
export interface ObservedCounts {
  add: number;
  del: number;
  /** The oldest and newest versions among the counted events (none: nothing counted). */
  oldest?: bigint;
  newest?: bigint;
}

/**
 * Counts the creations and deletions of the events newer than `through`
 * (every event when undefined), or returns undefined when an event has no
 * numeric version (it cannot be told from a replay; callers then lower
 * without versions). The watch delivers a collection's events in version
 * order, so a bridge that resumes from an older checkpoint replays a
 * prefix of what it lowered before: those events are at or below the
 * version the record was last lowered through.
 */
export const observedAfter = (
  events: readonly ObservedPodEvent[],
  through: bigint | undefined
): ObservedCounts | undefined => {
  const out: ObservedCounts = { add: 0, del: 0 };
  for (const e of events) {
    const rv = parseResourceVersion(e.resourceVersion);
    if (rv === undefined) return undefined;
    if (through !== undefined && rv <= through) continue;
    if (e.observed === 'creation') out.add++;
    else out.del++;
    if (out.newest === undefined || rv > out.newest) out.newest = rv;
    if (out.oldest === undefined || rv < out.oldest) out.oldest = rv;
  }
  return out;
};

/** Counts the creations and deletions of `events`, versions aside. */
export const observedCounts = (
  events: readonly ObservedPodEvent[]
): { add: number; del: number } => {
  const add = events.filter((e) => e.observed === 'creation').length;
  return { add, del: events.length - add };
};
