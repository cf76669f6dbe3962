/**
 * A list+watch cache of one resource, the part of client-go's informer the
 * watch-bridge needs: list, then watch from the list's resourceVersion with
 * bookmarks; resume from the last seen resourceVersion when a watch ends;
 * relist when the server answers Gone (410) and report what changed while
 * nobody watched (objects gone by then are reported deleted with their last
 * known state, like client-go's tombstones). No event is lost: every change
 * after the first list reaches a handler, possibly as a relist difference.
 */
import { ApiErrorReason, isApiError, toError } from '../../errors.js';
import type { Logger } from '../../ports.js';
import type { KubeObject } from '../../reconcile/types.js';
import type { KubeHttp } from './kube-http.js';

/** What the informer reports. */
export interface InformerHandlers<T> {
  onAdd(obj: T): void | Promise<void>;
  onUpdate(old: T, cur: T): void | Promise<void>;
  onDelete(obj: T): void | Promise<void>;
}

/** Delay before relisting after an unexpected watch failure. */
const RETRY_AFTER_FAILURE_MS = 1_000;
/** Server-side watch timeout; the watch is resumed right after. */
const WATCH_TIMEOUT_SECONDS = 300;

const keyOf = (o: KubeObject): string =>
  `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/** Keeps an in-memory copy of one resource in step with the API server. */
export class KubeInformer<T extends KubeObject> {
  /** Objects by `namespace/name`. */
  readonly store = new Map<string, T>();
  #resourceVersion = '';
  #synced = false;
  readonly #http: KubeHttp;
  readonly #path: string;
  readonly #handlers: InformerHandlers<T>;
  readonly #logger: Logger;

  constructor(opts: {
    http: KubeHttp;
    /** Collection path, e.g. `/api/v1/pods`. */
    path: string;
    handlers: InformerHandlers<T>;
    logger: Logger;
  }) {
    this.#http = opts.http;
    this.#path = opts.path;
    this.#handlers = opts.handlers;
    this.#logger = opts.logger;
  }

  /** Returns whether the first list has been delivered. */
  hasSynced(): boolean {
    return this.#synced;
  }

  /** Returns the resourceVersion the next watch resumes from. */
  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  /** Lists and reconciles the store with the list, reporting differences. */
  async relist(): Promise<void> {
    const { items, resourceVersion } = await this.#http.listWithVersion<T>(
      `list ${this.#path}`,
      this.#path
    );
    const seen = new Set<string>();
    for (const obj of items) {
      const key = keyOf(obj);
      seen.add(key);
      const old = this.store.get(key);
      this.store.set(key, obj);
      if (old === undefined) await this.#handlers.onAdd(obj);
      else if (
        old.metadata?.resourceVersion !== obj.metadata?.resourceVersion
      ) {
        await this.#handlers.onUpdate(old, obj);
      }
    }
    for (const [key, old] of this.store) {
      if (seen.has(key)) continue;
      this.store.delete(key);
      await this.#handlers.onDelete(old);
    }
    this.#resourceVersion = resourceVersion;
    this.#synced = true;
  }

  /** Watches once from the current resourceVersion until the stream ends. */
  async watchOnce(signal?: AbortSignal): Promise<void> {
    const events = this.#http.watch<T>(
      `watch ${this.#path}`,
      this.#path,
      {
        resourceVersion: this.#resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: WATCH_TIMEOUT_SECONDS,
      },
      signal
    );
    for await (const { type, object } of events) {
      const rv = object.metadata?.resourceVersion;
      if (type === 'BOOKMARK') {
        if (rv) this.#resourceVersion = rv;
        continue;
      }
      const key = keyOf(object);
      const old = this.store.get(key);
      if (type === 'DELETED') {
        this.store.delete(key);
        await this.#handlers.onDelete(old ?? object);
      } else {
        this.store.set(key, object);
        if (old === undefined) await this.#handlers.onAdd(object);
        else await this.#handlers.onUpdate(old, object);
      }
      if (rv) this.#resourceVersion = rv;
    }
  }

  /** Lists, then watches until `signal` aborts, recovering from failures. */
  async run(signal: AbortSignal): Promise<void> {
    let needsList = true;
    while (!signal.aborted) {
      try {
        if (needsList) await this.relist();
        needsList = false;
        await this.watchOnce(signal);
      } catch (e) {
        if (signal.aborted) return;
        needsList = true;
        if (isApiError(e, ApiErrorReason.Gone)) continue;
        this.#logger.warn('watch failed; relisting', {
          path: this.#path,
          error: toError(e).message,
        });
        await new Promise((r) => setTimeout(r, RETRY_AFTER_FAILURE_MS));
      }
    }
  }
}
