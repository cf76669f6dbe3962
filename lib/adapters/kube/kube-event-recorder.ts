/**
 * EventRecorder writing core/v1 Events as kube-controller-manager's
 * recorder does: source component `daemonset-controller`, similar events
 * aggregated, repeated ones counted and a burst per object bounded
 * (lib/policy/event-correlator.ts). Writes leave the sync's path: `record`
 * queues them and returns, one writer sends them in order (as client-go's
 * broadcaster goroutine does), and `flush` waits for them before a Lambda
 * returns. Best effort: a failed write is logged, never thrown. The
 * reporting component and the source host name this product, so its Events
 * can be told from kube-controller-manager's (`kubectl describe` shows only
 * the source component, upstream's).
 */
import { randomBytes } from 'node:crypto';
import { ApiErrorReason, isApiError, toError } from '../../errors.js';
import { EventCorrelator } from '../../policy/event-correlator.js';
import { USER_AGENT } from '../../policy/identity.js';
import type {
  EventRecorder,
  Logger,
  RecordedEventType,
} from '../../ports/index.js';
import { kindOf } from '../../reconcile/k8s/daemon-set-kind.js';
import { rfc3339 } from '../../reconcile/k8s/meta.js';
import type { DaemonSet } from '../../reconcile/k8s/types.js';
import type { KubeHttp } from './client/kube-http.js';
import { paths } from './paths.js';

/** The component name upstream's events carry. */
export const EVENT_SOURCE = 'daemonset-controller';

/** Events queued beyond this are dropped (client-go: 1,000). */
const MAX_QUEUED_EVENTS = 1_000;

/** Records Events on DaemonSets. */
export class KubeEventRecorder implements EventRecorder {
  readonly #http: KubeHttp;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #correlator = new EventCorrelator();
  #tail: Promise<void> = Promise.resolve();
  #queued = 0;
  /** Bumped by a flush cut short: events queued before it are dropped. */
  #epoch = 0;
  /** Writes sent (creates and patches), for tests and benchmarks. */
  writes = 0;

  constructor({
    http,
    logger,
    now = Date.now,
  }: {
    http: KubeHttp;
    logger: Logger;
    now?: () => number;
  }) {
    this.#http = http;
    this.#logger = logger;
    this.#now = now;
  }

  async record(
    object: DaemonSet,
    type: RecordedEventType,
    reason: string,
    message: string
  ): Promise<void> {
    if (this.#queued >= MAX_QUEUED_EVENTS) {
      this.#logger.warn('too many queued events; dropped one', { reason });
      return;
    }
    this.#queued++;
    const epoch = this.#epoch;
    this.#tail = this.#tail.then(() =>
      (epoch === this.#epoch
        ? this.#write(object, type, reason, message)
        : Promise.resolve()
      ).finally(() => {
        this.#queued--;
      })
    );
  }

  /**
   * Resolves once every queued event was written (or given up); once
   * `signal` aborts (a sync's deadline), at once, dropping the events not
   * yet written, logged once with their count. The one being written is
   * aborted with its request (the same deadline bounds it).
   */
  async flush(signal?: AbortSignal): Promise<void> {
    const tail = this.#tail;
    if (signal === undefined) return tail;
    let onAbort: (() => void) | undefined;
    const cut = await Promise.race([
      tail.then(() => false),
      new Promise<boolean>((resolve) => {
        onAbort = () => resolve(true);
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    if (onAbort) signal.removeEventListener('abort', onAbort);
    if (!cut || this.#queued === 0) return;
    this.#epoch++;
    this.#logger.warn('sync deadline passed; dropped events not yet written', {
      dropped: this.#queued,
    });
  }

  async #write(
    object: DaemonSet,
    type: RecordedEventType,
    reason: string,
    message: string
  ): Promise<void> {
    const ns = object.metadata?.namespace ?? 'default';
    const name = object.metadata?.name ?? '';
    const { apiVersion, kind } = kindOf(object);
    const uid = object.metadata?.uid ?? '';
    const nowMs = this.#now();
    const at = rfc3339(nowMs);
    const decision = this.#correlator.correlate(
      {
        objectKey: [apiVersion, kind, ns, name, uid].join('/'),
        type,
        reason,
        message,
      },
      nowMs
    );
    if (decision.action === 'skip') return;
    try {
      if (decision.action === 'patch') {
        this.writes++;
        try {
          await this.#http.request(
            `count event ${reason}`,
            'PATCH',
            `${paths.events(ns)}/${encodeURIComponent(decision.name)}`,
            {
              body: JSON.stringify({
                count: decision.count,
                lastTimestamp: at,
                message: decision.message,
              }),
              contentType: 'application/merge-patch+json',
            }
          );
          this.#correlator.written(decision.key, decision.name, decision.count);
          return;
        } catch (e) {
          // Expired (Events live an hour) or never written: create it anew.
          if (!isApiError(e, ApiErrorReason.NotFound)) throw e;
        }
      }
      const eventName = `${name}.${randomBytes(8).toString('hex')}`;
      this.writes++;
      await this.#http.request(
        `record event ${reason}`,
        'POST',
        paths.events(ns),
        {
          body: JSON.stringify({
            apiVersion: 'v1',
            kind: 'Event',
            metadata: { name: eventName, namespace: ns },
            involvedObject: {
              apiVersion,
              kind,
              name,
              namespace: ns,
              uid,
              resourceVersion: object.metadata?.resourceVersion,
            },
            reason,
            message: decision.message,
            type,
            source: { component: EVENT_SOURCE, host: USER_AGENT },
            firstTimestamp: at,
            lastTimestamp: at,
            count: 1,
            reportingComponent: USER_AGENT,
            reportingInstance: this.#http.userAgent,
          }),
        }
      );
      this.#correlator.written(decision.key, eventName, 1);
    } catch (e) {
      this.#logger.warn('could not record event', {
        reason,
        error: toError(e).message,
      });
    }
  }
}
