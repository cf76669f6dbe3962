/**
 * The rules of a key's dirty mark (client-go's dirty set), shared by the
 * memory and DynamoDB stores: when a mark blocks an add, and what became of
 * a mark an add waited on.
 *
 * A mark is "unsent" from `markDirty` until its sender confirms its message
 * went out. beginSync consumes a mark (dirty = false, its id kept);
 * clearDirty drops it with its id, so a consumed mark — a sync began after
 * it — is told from one whose message never went out.
 */
import type { MarkFate, MarkOutcome } from '../ports/index.js';

/**
 * How long a dirty mark blocks further adds: a mark whose message was lost
 * must not block the key forever; SQS delivers far sooner than this.
 */
export const DIRTY_MARK_TTL_MS = 5 * 60_000;

/**
 * How long a mark whose message was not yet confirmed sent blocks other
 * adds: a send takes well under this. Its sender may have died between mark
 * and send; its retry (a redelivery, a restarted bridge) then marks anew and
 * sends, and another sender's add waits for the mark's fate instead of
 * coalescing into it. An add racing a
 * slow send may send a second message: one extra sync, never a lost one.
 */
export const UNSENT_MARK_MS = 3_000;

/** A key's mark as the stores keep it. */
export interface DirtyMark {
  dirty: boolean;
  dirtyAtMs?: number;
  markId?: string;
  markUnsentSinceMs?: number;
}

const isFresh = (mark: DirtyMark, nowMs: number): boolean =>
  mark.dirty &&
  mark.dirtyAtMs !== undefined &&
  mark.dirtyAtMs >= nowMs - DIRTY_MARK_TTL_MS &&
  (mark.markUnsentSinceMs === undefined ||
    mark.markUnsentSinceMs >= nowMs - UNSENT_MARK_MS);

/**
 * Returns what an add with `markId` coalesces into, or undefined when it may
 * set the mark (no fresh mark, or the mark is this add's own earlier write).
 * The DynamoDB store states the same rule as a condition (HAS_NO_FRESH_MARK).
 */
export const blockingMarkOf = (
  mark: DirtyMark | undefined,
  markId: string,
  nowMs: number
): MarkOutcome | undefined => {
  if (mark === undefined || !isFresh(mark, nowMs) || mark.markId === markId) {
    return undefined;
  }
  return coalescedInto(mark);
};

/** Returns what an add that found `mark` blocking coalesced into. */
export const coalescedInto = (mark: DirtyMark): MarkOutcome =>
  mark.markUnsentSinceMs === undefined
    ? { kind: 'queued' }
    : { kind: 'unsent', markId: mark.markId ?? '' };

/** Returns what became of the mark `markId` an add is waiting on. */
export const markFateOf = (
  mark: DirtyMark | undefined,
  markId: string,
  nowMs: number
): MarkFate => {
  if (mark?.markId !== markId) return 'gone';
  if (!mark.dirty) return 'consumed';
  if (!isFresh(mark, nowMs)) return 'gone';
  return mark.markUnsentSinceMs === undefined ? 'sent' : 'pending';
};

/** Returns whether `markDirty` set the mark (the add must send). */
export const isMarked = (outcome: MarkOutcome): boolean =>
  outcome.kind === 'marked';
