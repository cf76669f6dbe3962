/**
 * WorkQueueLedger and WorkQueueMarks on the state table (`q#<key>` items):
 * client-go's dirty set, the delaying queue's one timer per key and the rate
 * limiter's failure count, shared by every bridge and reconciler.
 *
 * The item and its conditions: work-queue-conditions.ts; its reads and
 * writes with the item's expiry: work-queue-item-store.ts. Every method is
 * one conditional write or one consistent read; an expired item is absent.
 *
 * Invariants: of concurrent `markDirty` calls exactly one returns true; the
 * armed timer is always the earliest one asked for (until it is stale); a
 * timer is only disarmed by its own token.
 */
import { randomUUID } from 'node:crypto';
import { parseResourceVersion } from '../../policy/resource-version.js';
import type {
  ArmedTimer,
  MarkFate,
  MarkOutcome,
  SeenVersion,
  SeenVersions,
  SyncStart,
  WorkQueueLedger,
  WorkQueueMarks,
} from '../../ports/index.js';
import {
  coalescedInto,
  DIRTY_MARK_TTL_MS,
  markFateOf,
  UNSENT_MARK_MS,
} from '../../workqueue/dirty-mark.js';
import { UNSENT_TIMER_MS } from '../../workqueue/timer-message.js';
import { STALE_TIMER_MS } from '../memory/memory-work-queue-store.js';
import { bool, num, readNumber, str } from './dynamo-call.js';
import { SEEN_ATTRIBUTE, seenVersionsOf } from './seen-versions-item.js';
import {
  armedTimerOf,
  HAS_NO_EARLIER_TIMER,
  HAS_NO_FRESH_MARK,
  markOf,
  TIMER_ATTRIBUTES,
} from './work-queue-conditions.js';
import { WorkQueueItemStore } from './work-queue-item-store.js';

/** Work-queue bookkeeping kept in DynamoDB, one item per key. */
export class DynamoWorkQueueStore
  extends WorkQueueItemStore
  implements WorkQueueLedger, WorkQueueMarks
{
  async markDirty(
    key: string,
    seen?: SeenVersion,
    markId: string = randomUUID()
  ): Promise<MarkOutcome> {
    const now = this.clock.now();
    if (seen !== undefined) await this.raiseSeen(key, seen);
    const outcome = await this.updateLive('markDirty', key, now, {
      update:
        'SET #dirty = :true, #dirtyAtMs = :now, #markId = :markId, #markUnsentSinceMs = :now, #expiresAt = :expiresAt',
      condition: HAS_NO_FRESH_MARK,
      values: {
        ':true': bool(true),
        ':false': bool(false),
        ':now': num(now),
        ':staleMark': num(now - DIRTY_MARK_TTL_MS),
        ':staleUnsentMark': num(now - UNSENT_MARK_MS),
        ':markId': str(markId),
      },
    });
    return outcome.ok ? { kind: 'marked' } : coalescedInto(markOf(outcome.old));
  }

  async markFate(key: string, markId: string): Promise<MarkFate> {
    const item = await this.read('markFate', key);
    return markFateOf(item && markOf(item), markId, this.clock.now());
  }

  async confirmMark(key: string, markId: string): Promise<void> {
    await this.updateExisting('confirmMark', key, {
      update: 'REMOVE #markUnsentSinceMs',
      condition: '#markId = :markId',
      values: { ':markId': str(markId) },
    });
  }

  async clearDirty(key: string, markId?: string): Promise<void> {
    await this.updateExisting('clearDirty', key, {
      update:
        'SET #dirty = :false REMOVE #dirtyAtMs, #markId, #markUnsentSinceMs',
      ...(markId === undefined
        ? { values: { ':false': bool(false) } }
        : {
            condition: '#markId = :markId',
            values: { ':false': bool(false), ':markId': str(markId) },
          }),
    });
  }

  async beginSync(key: string): Promise<SyncStart> {
    const now = this.clock.now();
    const outcome = await this.updateLive(
      'beginSync',
      key,
      now,
      {
        update:
          'SET #dirty = :false, #expiresAt = :expiresAt REMOVE #dirtyAtMs',
        values: { ':false': bool(false) },
      },
      'ALL_NEW'
    );
    const item = outcome.ok ? outcome.attributes : undefined;
    return {
      failures: readNumber(item, 'failures') ?? 0,
      seen: seenVersionsOf(item),
      readLatest: item?.readLatest?.BOOL === true,
    };
  }

  async seenOf(key: string): Promise<SeenVersions> {
    return seenVersionsOf(await this.read('seenOf', key));
  }

  /** Raises the key's seen version (never lowers it; keeps only numbers). */
  async raiseSeen(key: string, seen: SeenVersion): Promise<void> {
    const now = this.clock.now();
    if (seen.releasePod !== undefined) {
      await this.updateLive('noteRelease', key, now, {
        update: 'ADD #releasePods :pod SET #expiresAt = :expiresAt',
        values: { ':pod': { SS: [seen.releasePod] } },
      });
    }
    if (parseResourceVersion(seen.resourceVersion) === undefined) return;
    const attribute = SEEN_ATTRIBUTE[seen.collection];
    await this.updateLive('raiseSeen', key, now, {
      update: `SET #${attribute} = :version, #expiresAt = :expiresAt`,
      condition: `attribute_not_exists(#${attribute}) OR #${attribute} < :version`,
      values: { ':version': { N: seen.resourceVersion } },
    });
  }

  async forgetReleases(key: string, pods: readonly string[]): Promise<void> {
    if (pods.length === 0) return;
    await this.updateExisting('forgetReleases', key, {
      update: 'DELETE #releasePods :pods',
      values: { ':pods': { SS: [...pods] } },
    });
  }

  async recordFailure(key: string): Promise<number> {
    const now = this.clock.now();
    const outcome = await this.updateLive(
      'recordFailure',
      key,
      now,
      {
        update: 'ADD #failures :one SET #expiresAt = :expiresAt',
        values: { ':one': num(1) },
      },
      'UPDATED_NEW'
    );
    return outcome.ok ? (readNumber(outcome.attributes, 'failures') ?? 1) : 1;
  }

  async requireLatest(key: string): Promise<void> {
    await this.updateLive('requireLatest', key, this.clock.now(), {
      update: 'SET #readLatest = :true, #expiresAt = :expiresAt',
      values: { ':true': bool(true) },
    });
  }

  async forget(key: string): Promise<void> {
    await this.updateExisting('forget', key, {
      update: 'REMOVE #failures, #readLatest',
    });
  }

  async armTimer(key: string, dueAtMs: number): Promise<string | undefined> {
    const now = this.clock.now();
    const token = randomUUID();
    const outcome = await this.updateLive(
      'armTimer',
      key,
      now,
      {
        update:
          'SET #timerToken = :token, #timerDueAtMs = :dueAtMs, #timerUnsentSinceMs = :now, #expiresAt = :expiresAt REMOVE #timerAbandoned',
        condition: HAS_NO_EARLIER_TIMER,
        values: {
          ':true': bool(true),
          ':token': str(token),
          ':dueAtMs': num(dueAtMs),
          ':now': num(now),
          ':staleTimer': num(now - STALE_TIMER_MS),
          ':staleUnsent': num(now - UNSENT_TIMER_MS),
        },
      },
      'NONE',
      // Outlive the timer, not just the write.
      Math.max(now, dueAtMs)
    );
    return outcome.ok ? token : undefined;
  }

  async isTimerArmed(key: string, token: string): Promise<boolean> {
    const timer = await this.armedTimer(key);
    return timer?.token === token && timer.abandoned === undefined;
  }

  async armedTimer(key: string): Promise<ArmedTimer | undefined> {
    return armedTimerOf(await this.read('armedTimer', key));
  }

  async confirmTimer(key: string, token: string): Promise<void> {
    await this.updateExisting('confirmTimer', key, {
      update: 'REMOVE #timerUnsentSinceMs',
      condition: '#timerToken = :token',
      values: { ':token': str(token) },
    });
  }

  async disarmTimer(key: string, token: string): Promise<void> {
    await this.updateExisting('disarmTimer', key, {
      update: `REMOVE ${TIMER_ATTRIBUTES}`,
      condition: '#timerToken = :token',
      values: { ':token': str(token) },
    });
  }

  async abandonTimer(key: string, token: string): Promise<void> {
    await this.updateExisting('abandonTimer', key, {
      update: 'SET #timerAbandoned = :true',
      condition: '#timerToken = :token',
      values: { ':token': str(token), ':true': bool(true) },
    });
  }
}
