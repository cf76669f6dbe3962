/**
 * One resource's watch loop for the bridge: watch from the last processed
 * resourceVersion, hand every event to `onEvent` in order, and advance the
 * resourceVersion only after the handler finished — so a crash, a failed
 * handler or a dropped connection re-delivers from the last processed event
 * and nothing is lost. Bookmarks advance it too. A 410 Gone (the version was
 * compacted away) or a ResourceVersionTooLarge (the version is ahead of the
 * server: an etcd restore, or a cluster re-registered under the same id)
 * goes to `onGone`, which repairs what may have been missed and returns
 * where to resume — client-go's reflector relists on both. A stream that
 * brings nothing, not even a bookmark, for `idleTimeoutMs` is taken for a
 * half-open connection and reopened.
 *
 * With `flush`, a handler may leave its writes pending: the watch flushes
 * them FLUSH_DELAY_MS after an event, at once after FLUSH_EVENTS events,
 * and before it reopens, repairs or stops — and counts a version as
 * processed only once the writes of every event up to it landed. A failed
 * flush is retried (1 s doubling to 30 s) while events keep arriving.
 *
 * An event that keeps failing as unreadable is skipped after a few tries
 * (poison-events.ts), logged once at error and counted in `skipped`.
 */
import { ApiErrorReason, isApiError, mustRelist, toError } from '../errors.js';
import type {
  Clock,
  Logger,
  WatchEvent,
  WatchedResource,
} from '../ports/index.js';
import type { KubeObject } from '../reconcile/k8s/types.js';
import { abortableSleep } from './abortable-sleep.js';
import { IdleWatchdog } from './idle-watchdog.js';
import { eventKeyOf, PoisonEvents } from './poison-events.js';

/** What a resource watch needs. */
export interface ResourceWatchOptions<T extends KubeObject> {
  /** The collection watched (for logs). */
  resource: WatchedResource;
  /** Opens a watch stream from a resourceVersion. */
  watch(
    resourceVersion: string,
    timeoutSeconds: number,
    signal: AbortSignal
  ): AsyncIterable<WatchEvent<T>>;
  onEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T): Promise<void>;
  /** Repairs after a 410 and returns the resourceVersion to resume from. */
  onGone(): Promise<string>;
  clock: Clock;
  logger: Logger;
  /** Silence after which a stream is reopened (default WATCH_IDLE_TIMEOUT_MS). */
  idleTimeoutMs?: number;
  /** Writes what the handled events left pending (see the header). */
  flush?: () => Promise<void>;
  /** First delay after a failure (default RETRY_INITIAL_MS); tests shorten it. */
  retryInitialMs?: number;
}

/**
 * How long events gather before their writes go out: a burst's events
 * arrive within milliseconds of each other; a sync woken 20 ms later than
 * it would be does not notice.
 */
export const FLUSH_DELAY_MS = 20;
/** Events after which a flush waits for no timer (and the watch for it). */
export const FLUSH_EVENTS = 500;

/**
 * How long a watch may bring nothing before it counts as dead: two and a
 * half bookmark periods (the API server sends a bookmark about every
 * minute to watchers that ask for them), well under TCP keepalive's ~11 min.
 */
export const WATCH_IDLE_TIMEOUT_MS = 150_000;

/** Retry delays after a failed watch: 1 s doubling to 30 s (client-node's). */
const RETRY_INITIAL_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/** Watches one resource until `signal` aborts; resumable at any moment. */
export class ResourceWatch<T extends KubeObject> {
  /** The resourceVersion of the last fully processed event or bookmark. */
  resourceVersion: string;
  /** Wall time of the last event, bookmark or (re)connect. */
  lastActivityMs: number;
  /** Events handled since start. */
  events = 0;
  readonly #o: ResourceWatchOptions<T>;
  readonly #poison = new PoisonEvents();
  /** The version of the last handled event (its writes maybe pending). */
  #handled: string;
  /** Events and bookmarks handled since the last flush began. */
  #unflushed = 0;
  #timer: NodeJS.Timeout | undefined;
  /** Flushes run one after another. */
  #flushes: Promise<void> = Promise.resolve();
  #signal: AbortSignal | undefined;

  constructor(options: ResourceWatchOptions<T>, resourceVersion: string) {
    this.#o = options;
    this.resourceVersion = resourceVersion;
    this.#handled = resourceVersion;
    this.lastActivityMs = options.clock.now();
  }

  /** Runs watch after watch until `signal` aborts or `deadlineMs` passes. */
  async run(signal: AbortSignal, deadlineMs: number): Promise<void> {
    this.#signal = signal;
    try {
      await this.#watchUntil(signal, deadlineMs);
    } finally {
      await this.#flush();
    }
  }

  /** Events skipped as unreadable since start. */
  get skipped(): number {
    return this.#poison.skipped;
  }

  async #watchUntil(signal: AbortSignal, deadlineMs: number): Promise<void> {
    const initialMs = this.#o.retryInitialMs ?? RETRY_INITIAL_MS;
    let retryMs = initialMs;
    while (!signal.aborted) {
      // A stream reopens from what is processed: nothing may be pending.
      await this.#flush();
      const left = Math.floor((deadlineMs - this.#o.clock.now()) / 1_000);
      if (left < 1) return;
      const idle = new IdleWatchdog(
        this.#o.idleTimeoutMs ?? WATCH_IDLE_TIMEOUT_MS
      );
      let inHandler = false;
      try {
        this.lastActivityMs = this.#o.clock.now();
        const stream = this.#o.watch(
          this.resourceVersion,
          Math.min(left, 300),
          AbortSignal.any([signal, idle.signal])
        );
        for await (const { type, object } of stream) {
          // Silence is the stream's, not our handler's: paused meanwhile.
          idle.stop();
          this.lastActivityMs = this.#o.clock.now();
          if (type !== 'BOOKMARK' && type !== 'ERROR') {
            inHandler = true;
            await this.#handle(type, object);
            inHandler = false;
          }
          idle.reset();
          const rv = object.metadata?.resourceVersion;
          if (rv) await this.#handledUpTo(rv);
          retryMs = initialMs;
        }
        if (idle.fired) this.#logIdle();
      } catch (caught) {
        let e = caught;
        if (signal.aborted) return;
        if (idle.fired) {
          this.#logIdle();
          continue;
        }
        // An event that does not decode has no version to step past: it is
        // skipped by the repair a 410 gets, a relist from now.
        const undecodable =
          !inHandler && this.#poison.spent(`after ${this.#handled}`, e);
        if (undecodable) {
          this.#o.logger.error(
            'skipping an undecodable watch event; repairing',
            {
              resource: this.#o.resource,
              after: this.#handled,
              error: toError(e).message,
            }
          );
        } else if (mustRelist(e)) {
          this.#o.logger.info(
            isApiError(e, ApiErrorReason.Gone)
              ? 'watch expired (410); repairing'
              : 'watch ahead of the server (ResourceVersionTooLarge); repairing',
            { resource: this.#o.resource, error: toError(e).message }
          );
        }
        if (undecodable || mustRelist(e)) {
          try {
            await this.#flush();
            this.resourceVersion = await this.#o.onGone();
            this.#handled = this.resourceVersion;
            continue;
          } catch (repair) {
            e = repair;
          }
        }
        this.#o.logger.warn('watch failed; resuming from last event', {
          resource: this.#o.resource,
          error: toError(e).message,
          retryInMs: retryMs,
        });
        await abortableSleep(retryMs, signal);
        retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      } finally {
        idle.stop();
      }
    }
  }

  /**
   * Hands one event to the handler; an event it keeps failing on as
   * unreadable is skipped: its version counts as handled, so the watch goes
   * on with the next event, and the object is read again at its next event
   * or relist (a resync, a 410).
   */
  async #handle(
    type: 'ADDED' | 'MODIFIED' | 'DELETED',
    object: T
  ): Promise<void> {
    try {
      await this.#o.onEvent(type, object);
      this.events++;
    } catch (e) {
      const key = eventKeyOf(object);
      if (!this.#poison.spent(`${type} ${key}`, e)) throw e;
      this.#o.logger.error('skipping a watch event its handler fails on', {
        resource: this.#o.resource,
        object: key,
        error: toError(e).message,
      });
    }
  }

  /** Records `rv` as handled; processed at once, or once flushed. */
  async #handledUpTo(rv: string): Promise<void> {
    this.#handled = rv;
    if (this.#o.flush === undefined) {
      this.resourceVersion = rv;
      return;
    }
    this.#unflushed++;
    if (this.#unflushed >= FLUSH_EVENTS) {
      await this.#flush();
    } else {
      this.#timer ??= setTimeout(() => void this.#flush(), FLUSH_DELAY_MS);
    }
  }

  /**
   * Writes what is pending, then counts every version handled before the
   * call as processed; resolves when every flush so far is done (a failed
   * write is retried until it lands or the watch stops).
   */
  #flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const flush = this.#o.flush;
    if (flush === undefined || this.#unflushed === 0) return this.#flushes;
    const upTo = this.#handled;
    this.#unflushed = 0;
    this.#flushes = this.#flushes.then(async () => {
      let retryMs = RETRY_INITIAL_MS;
      for (;;) {
        try {
          await flush();
          this.resourceVersion = upTo;
          return;
        } catch (e) {
          this.#o.logger.warn('writing watch events failed; retrying', {
            resource: this.#o.resource,
            error: toError(e).message,
            retryInMs: retryMs,
          });
          // Stopped: what is not written is not processed, and is
          // delivered again from the checkpoint.
          if (this.#signal?.aborted) return;
          await abortableSleep(retryMs, this.#signal);
          retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
        }
      }
    });
    return this.#flushes;
  }

  #logIdle(): void {
    this.#o.logger.warn('watch silent too long; reopening from last event', {
      resource: this.#o.resource,
    });
  }
}
