/**
 * EventRecorder writing core/v1 Events as kube-controller-manager's
 * recorder does (source component `daemonset-controller`). Recording is best
 * effort: a failed write is logged, never thrown, as upstream's broadcaster.
 */
import { randomBytes } from 'node:crypto';
import { toError } from '../../errors.js';
import type { EventRecorder, EventType, Logger } from '../../ports/index.js';
import { kindOf } from '../../reconcile/k8s/daemon-set-kind.js';
import { rfc3339 } from '../../reconcile/k8s/meta.js';
import type { DaemonSet } from '../../reconcile/k8s/types.js';
import type { KubeHttp } from './kube-http.js';
import { paths } from './paths.js';

/** The component name upstream's events carry. */
export const EVENT_SOURCE = 'daemonset-controller';

/** Records Events on DaemonSets. */
export class KubeEventRecorder implements EventRecorder {
  readonly #http: KubeHttp;
  readonly #logger: Logger;
  readonly #now: () => number;

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
    type: EventType,
    reason: string,
    message: string
  ): Promise<void> {
    const ns = object.metadata?.namespace ?? 'default';
    const name = object.metadata?.name ?? '';
    const at = rfc3339(this.#now());
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: `${name}.${randomBytes(8).toString('hex')}`,
        namespace: ns,
      },
      involvedObject: {
        apiVersion: kindOf(object).apiVersion,
        kind: kindOf(object).kind,
        name,
        namespace: ns,
        uid: object.metadata?.uid,
        resourceVersion: object.metadata?.resourceVersion,
      },
      reason,
      message,
      type,
      source: { component: EVENT_SOURCE },
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
      reportingComponent: EVENT_SOURCE,
    };
    try {
      await this.#http.request(
        `record event ${reason}`,
        'POST',
        paths.events(ns),
        {
          body: JSON.stringify(event),
        }
      );
    } catch (e) {
      this.#logger.warn('could not record event', {
        reason,
        error: toError(e).message,
      });
    }
  }
}
