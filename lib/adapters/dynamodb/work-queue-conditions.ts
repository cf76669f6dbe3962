/**
 * The work queue's `q#<key>` items (dynamo-work-queue-store.ts) and the
 * conditions of their writes, each naming what may be overwritten.
 *
 * Item: dirty (BOOL) + dirtyAtMs + markId (+ markUnsentSinceMs until its
 * message is confirmed sent), seenPods / seenNodes (N: the highest
 * resourceVersion an add saw, only ever raised), failures (N), timerToken
 * (S) + timerDueAtMs (+ timerUnsentSinceMs until its message is confirmed
 * sent; + timerAbandoned (BOOL) once it could not be sent), expiresAt. Each
 * conditional write carries its own id, so the SDK's retry of a write that
 * committed is recognised as the same write.
 */

import type { ArmedTimer } from '../../ports/index.js';
import type { DirtyMark } from '../../workqueue/dirty-mark.js';
import { type Item, readNumber, readString } from './dynamo-call.js';

/** Reads the dirty mark of a `q#<key>` item. */
export const markOf = (item: Item | undefined): DirtyMark => ({
  dirty: item?.dirty?.BOOL === true,
  dirtyAtMs: readNumber(item, 'dirtyAtMs'),
  markId: readString(item, 'markId'),
  markUnsentSinceMs: readNumber(item, 'markUnsentSinceMs'),
});

/**
 * No fresh dirty mark: never marked, cleared, or its message was lost, or
 * set by a sender that never confirmed sending its message (it died between
 * mark and send) — or the mark is this very call's or its sender's own
 * retry (an SDK retry of a write that committed while its response was lost
 * must not read as "already marked").
 */
export const HAS_NO_FRESH_MARK =
  'attribute_not_exists(#dirty) OR #dirty = :false OR #dirtyAtMs < :staleMark OR #markId = :markId OR #markUnsentSinceMs < :staleUnsentMark';

/**
 * No timer that fires no later than the new one and is not stale, nor one
 * armed long ago whose message was never confirmed sent, nor an abandoned
 * one — or the timer is this very call's (an SDK retry after a lost
 * response).
 */
export const HAS_NO_EARLIER_TIMER =
  'attribute_not_exists(#timerToken) OR #timerDueAtMs > :dueAtMs OR #timerDueAtMs < :staleTimer OR #timerUnsentSinceMs < :staleUnsent OR #timerAbandoned = :true OR #timerToken = :token';

/** Every attribute of a `q#<key>` item's timer (a disarm removes them). */
export const TIMER_ATTRIBUTES =
  '#timerToken, #timerDueAtMs, #timerUnsentSinceMs, #timerAbandoned';

/** Reads the armed timer of a `q#<key>` item, if it has one. */
export const armedTimerOf = (
  item: Item | undefined
): ArmedTimer | undefined => {
  const token = readString(item, 'timerToken');
  const dueAtMs = readNumber(item, 'timerDueAtMs');
  const unsentSinceMs = readNumber(item, 'timerUnsentSinceMs');
  if (token === undefined || dueAtMs === undefined) return undefined;
  return {
    token,
    dueAtMs,
    ...(unsentSinceMs === undefined ? {} : { unsentSinceMs }),
    ...(item?.timerAbandoned?.BOOL === true ? { abandoned: true } : {}),
  };
};
