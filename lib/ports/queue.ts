/**
 * The ports of the work queue: client-go's workqueue split into the
 * producer (WorkQueue), the consumer's bookkeeping (WorkQueueLedger), the
 * marks a queue adapter keeps (WorkQueueMarks) and the delay queue that
 * carries timers (DelayQueue).
 */

/**
 * The producer half of the work queue (client-go `Add` / `AddAfter`). Adds of
 * a key that is already waiting coalesce; an add while the key is being
 * synced causes one more sync after it.
 */
export interface WorkQueue {
  /**
   * Asks for a sync of `key` as soon as possible; `seen` is what the caller
   * saw that made it ask (the sync reads state at least that fresh).
   */
  add(key: string, seen?: SeenVersion): Promise<void>;
  /** Asks for a sync of `key` after `delayMs`; the earliest pending time wins. */
  addAfter(key: string, delayMs: number): Promise<void>;
  /**
   * Asks for a sync of `key` even if it looks queued already: its mark may
   * be left by a consumer that took the message without syncing (a fenced
   * cluster's). Costs at most one duplicate sync.
   */
  addAnew(key: string): Promise<void>;
  /**
   * Records what the caller saw for `key` without asking for a sync. The
   * bridge notes a pod event's version before it lowers expectations for
   * it, so a sync that finds them lowered reads pods at least that fresh
   * (upstream's informer holds a pod before its handler lowers them).
   */
  noteSeen?(key: string, seen: SeenVersion): Promise<void>;
}

/** The collections whose cached reads a sync may need to be this fresh. */
export type SeenCollection = 'pods' | 'nodes';

/**
 * The resourceVersion of an event of `collection` that made the bridge queue
 * a key: the sync must read that collection no older than it (upstream's
 * informer cache always holds the event whose handler queued the key).
 */
export interface SeenVersion {
  collection: SeenCollection;
  resourceVersion: string;
  /**
   * A pod the key's DaemonSet owns but whose labels its selector no longer
   * matches: the sync must read it (its cache, filtered by the selector,
   * lost it) and release it, as upstream's namespace-wide list finds it.
   */
  releasePod?: string;
}

/**
 * The highest version seen per collection before a key's sync began, and
 * the pods to release that the adds named.
 */
export type SeenVersions = Partial<Record<SeenCollection, string>> & {
  releasePods?: string[];
};

/** What a sync learns as it begins. */
export interface SyncStart {
  /** Failures counted since the last `forget`. */
  failures: number;
  /** How fresh its cached reads must be. */
  seen: SeenVersions;
  /**
   * Whether an attempt of the key died since its last successful sync
   * (`requireLatest`): the sync reads the latest state, not a cache.
   */
  readLatest: boolean;
}

/**
 * The consumer's per-key bookkeeping (client-go's `dirty` set and the
 * rate limiter's failure count), kept where every reconciler can see it.
 */
export interface WorkQueueLedger {
  /**
   * Called before a sync reads any state: clears the key's dirty mark, so an
   * add from now on wakes the key again. Returns the failures counted since
   * the last `forget`, and the versions seen by the adds so far (kept, never
   * cleared: a retry must read as fresh as the attempt it repeats).
   */
  beginSync(key: string): Promise<SyncStart>;
  /** Counts one failed sync; returns the count including it. */
  recordFailure(key: string): Promise<number>;
  /**
   * Notes that an attempt of the key died (its message came back), or that
   * a write's fate is unknown: until a sync succeeds, the key's syncs drop
   * its expectations and read the latest state. The dead attempt's writes
   * are covered by no expectations, and neither a redelivered message that
   * is requeued without a sync nor a first delivery after the dead
   * attempt's message was dead-lettered shows the death.
   */
  requireLatest(key: string): Promise<void>;
  /** Forgets the key's failures (client-go `Forget`) and `requireLatest`. */
  forget(key: string): Promise<void>;
  /** Forgets pods to release that a successful sync has looked at. */
  forgetReleases(key: string, pods: readonly string[]): Promise<void>;
  /**
   * Returns the versions seen for the key now (a sync reads them again
   * after it found its expectations satisfied).
   */
  seenOf(key: string): Promise<SeenVersions>;
}

/**
 * What `markDirty` did: set the mark, or coalesced into a mark whose
 * message went out (`queued`), or found another sender's mark not yet
 * confirmed sent (`unsent`): that sender may have died before its send.
 */
export type MarkOutcome =
  | { kind: 'marked' }
  | { kind: 'queued' }
  | { kind: 'unsent'; markId: string };

/**
 * What became of a mark an add waits on: still unsent (`pending`), its
 * message out (`sent`), taken by a sync that began after it (`consumed`),
 * or no longer blocking — cleared, stale, replaced (`gone`: add anew).
 */
export type MarkFate = 'pending' | 'sent' | 'consumed' | 'gone';

/** A key's armed timer: its token and when it is due. */
export interface ArmedTimer {
  token: string;
  dueAtMs: number;
  /** When it was armed, until its message is confirmed sent. */
  unsentSinceMs?: number;
  /**
   * Its message could not be sent (`abandonTimer`; it stays unsent): it
   * blocks no later timer and supersedes none it replaced.
   */
  abandoned?: true;
}

/**
 * What a queue adapter stores to coalesce adds and keep one timer per key
 * (client-go's dirty set and the delaying queue's `waitingForQueue`).
 */
export interface WorkQueueMarks {
  /**
   * Marks the key dirty, or tells what fresh mark the add coalesces into.
   * Raises the key's seen version of the collection first, if given. A
   * mark is "unsent" until `confirmMark`: one whose sender died before its
   * message went out stops blocking after UNSENT_MARK_MS. `markId` names the
   * mark (a sender retrying its own unsent mark passes the same id).
   */
  markDirty(
    key: string,
    seen?: SeenVersion,
    markId?: string
  ): Promise<MarkOutcome>;
  /** Returns what became of the key's mark `markId` (a consistent read). */
  markFate(key: string, markId: string): Promise<MarkFate>;
  /** Records that the message of mark `markId` was sent. */
  confirmMark(key: string, markId: string): Promise<void>;
  /** Raises the key's seen version of the collection (never lowers it). */
  raiseSeen(key: string, seen: SeenVersion): Promise<void>;
  /**
   * Drops the key's dirty mark with its id: an add's undo after its send
   * failed (only its own mark `markId`: a newer one of another sender
   * stays), or `addAnew`'s reset (any mark).
   */
  clearDirty(key: string, markId?: string): Promise<void>;
  /**
   * Arms the key's timer for `dueAtMs` unless an earlier timer is pending;
   * returns the new timer's token, or undefined when the pending one fires
   * first. A pending timer never confirmed sent stops counting after a
   * while (its writer died before sending its message).
   */
  armTimer(key: string, dueAtMs: number): Promise<string | undefined>;
  /** Records that the message of timer `token` was sent. */
  confirmTimer(key: string, token: string): Promise<void>;
  /** Returns whether `token` is still the key's armed, unabandoned timer. */
  isTimerArmed(key: string, token: string): Promise<boolean>;
  /** Returns the key's armed timer, if any (abandoned ones too). */
  armedTimer(key: string): Promise<ArmedTimer | undefined>;
  /** Disarms the timer if `token` is still the armed one (it fired). */
  disarmTimer(key: string, token: string): Promise<void>;
  /**
   * Abandons the timer if `token` is still the armed one: its message could
   * not be sent. Unlike a disarmed timer it stays on record, so the
   * messages of timers it replaced still fire (a missing timer reads as
   * "fired or replaced", and would drop them), and it
   * blocks no later timer.
   */
  abandonTimer(key: string, token: string): Promise<void>;
}

/** Sends timer messages with a delay (the SQS delay queue in production). */
export interface DelayQueue {
  /** Sends `body` so that it is delivered after `delaySeconds` (0–900). */
  send(body: string, delaySeconds: number): Promise<void>;
}

/** A received work-queue message, as its lease names it. */
export interface ReceivedMessage {
  messageId: string;
  /** This receipt's handle: a message received again has a new one. */
  receiptHandle: string;
}

/**
 * Leases on received messages (SQS visibility): while an invocation holds
 * a message, no other receive can return it. Lambda may start a batch's
 * invocation late (a throttled invocation is retried until the visibility
 * timeout expires), so the lease the receive took can end while the
 * invocation still runs; renewed from the invocation's start, it outlasts
 * the invocation, and client-go's "a key is never processed concurrently"
 * holds however late the batch arrived.
 */
export interface MessageLeases {
  /**
   * Holds each message for at least `runsForMs` from now (and no less than
   * the queue's own visibility timeout); returns the ids still held. A
   * message received again meanwhile, or visible again, is not: another
   * invocation has it, or will. Throws when the leases cannot be asked for.
   */
  hold(
    messages: readonly ReceivedMessage[],
    runsForMs: number
  ): Promise<ReadonlySet<string>>;
}
