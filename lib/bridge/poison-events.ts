/**
 * The failure budget of a watch's events: an event that fails as
 * unreadable (UnreadableEventError: it does not decode, or its object makes
 * the handler throw) POISON_EVENT_TRIES times in a row, each try after the
 * watch's backoff, is skipped, so one object cannot hold its collection's
 * stream for ever. Any other failure (a queue or table write) does not
 * count: skipping it would lose a wake-up, so it is retried until it lands.
 */
import { UnreadableEventError } from '../errors.js';
import type { KubeObject } from '../reconcile/k8s/types.js';
import { isWriteFailure } from './apply-event-keys.js';

/**
 * Tries of one unreadable event before it is skipped: with the watch's
 * backoff of 1 s doubling, it is skipped about 15 s after its first try.
 */
export const POISON_EVENT_TRIES = 5;

/** Counts the tries of the event that keeps failing. */
export class PoisonEvents {
  /** Events skipped since start. */
  skipped = 0;
  #suspect: string | undefined;
  #tries = 0;

  /**
   * Records a failure of the event `id`; returns true when it is to be
   * skipped now (its budget spent: counted in `skipped`, budget reset).
   */
  spent(id: string, error: unknown): boolean {
    if (!(error instanceof UnreadableEventError)) return false;
    if (id !== this.#suspect) {
      this.#suspect = id;
      this.#tries = 0;
    }
    this.#tries += 1;
    if (this.#tries < POISON_EVENT_TRIES) return false;
    this.#suspect = undefined;
    this.#tries = 0;
    this.skipped += 1;
    return true;
  }
}

/** Returns an object's name in logs: `namespace/name@resourceVersion`. */
export const eventKeyOf = (obj: KubeObject | undefined): string => {
  const m = obj?.metadata;
  const name = m?.namespace ? `${m.namespace}/${m.name}` : (m?.name ?? '?');
  return `${name}@${m?.resourceVersion ?? '?'}`;
};

/**
 * Returns a rejection handler for a handler's failure on one event: a
 * failed write is rethrown as it is; any other failure is the object's
 * (nothing in it changes on a retry) and becomes an UnreadableEventError.
 */
export const unlessWrite =
  (what: string) =>
  (e: unknown): never => {
    if (isWriteFailure(e)) throw e;
    throw new UnreadableEventError(what, { cause: e });
  };
