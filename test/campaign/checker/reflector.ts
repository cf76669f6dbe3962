/**
 * List-then-watch of one resource, the checker's own (client-go's Reflector
 * in miniature): lists with pagination, watches from the list's
 * resourceVersion, re-watches from the last seen version when a watch ends
 * (the API server closes them every few minutes; client-node's Watch gives
 * up after 30 s without a byte) and re-lists on 410 Gone. It reports how
 * long it has been without a running watch, so the checker can void a run
 * whose history has a hole.
 */
import http from 'node:http';
import https from 'node:https';
import { type KubeConfig, Watch } from '@kubernetes/client-node';
import type { ObjectMeta } from './kube-objects.js';

/** What a reflector hands on. */
export interface ReflectorSink<T> {
  /** A watch event; `type` is ADDED, MODIFIED or DELETED. */
  event(type: string, obj: T): void;
  /** A full list, replacing everything seen before. */
  snapshot(items: T[], resourceVersion: string): void;
  /** A line for the history (watch restarts, errors). */
  note(text: string): void;
}

/** Delay before retrying a failed list or watch; doubles up to the cap. */
const RETRY_BASE_MS = 250;
const RETRY_CAP_MS = 4_000;
/** A watch that ends sooner than this without an error is suspicious. */
const MIN_HEALTHY_WATCH_MS = 1_000;
/** Page size of lists (client-go lists in pages of 500). */
const LIST_PAGE = 500;

/** Why a watch ended. */
type WatchEnd = 'closed' | 'gone' | 'failed';

/** Lists and watches `path`, feeding `sink`, until stopped. */
export class Reflector<T extends { metadata: ObjectMeta }> {
  #resourceVersion = '';
  #downSinceMs: number | undefined;
  #abort: AbortController | undefined;
  #stopped = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;

  constructor(
    private readonly kc: KubeConfig,
    private readonly path: string,
    private readonly sink: ReflectorSink<T>,
    private readonly now: () => number
  ) {}

  /** Since when no watch has been running (undefined while one is). */
  get downSinceMs(): number | undefined {
    return this.#downSinceMs;
  }

  /** Lists once (throws if that fails), then keeps a watch running. */
  async start(): Promise<void> {
    this.#downSinceMs = this.now();
    await this.#list();
    this.#loop = this.#run();
  }

  /** Ends the watch; resolves once the loop has stopped. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#abort?.abort();
    this.#wake?.();
    await this.#loop;
  }

  async #run(): Promise<void> {
    let retryMs = RETRY_BASE_MS;
    let mustList = false;
    while (!this.#stopped) {
      let failed = false;
      try {
        if (mustList) await this.#list();
        mustList = false;
        const end = await this.#watch();
        mustList = end === 'gone';
        failed = end === 'failed';
      } catch (e) {
        this.sink.note(`${this.path}: ${(e as Error).message}; retrying`);
        failed = true;
      }
      if (!failed) {
        retryMs = RETRY_BASE_MS;
        continue;
      }
      await this.#pause(retryMs);
      retryMs = Math.min(retryMs * 2, RETRY_CAP_MS);
    }
  }

  #pause(ms: number): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async #list(): Promise<void> {
    const items: T[] = [];
    let cont = '';
    let resourceVersion = '';
    do {
      const query = new URLSearchParams({ limit: String(LIST_PAGE) });
      if (cont) query.set('continue', cont);
      const page = (await this.#get(`${this.path}?${query}`)) as {
        items: T[];
        metadata: { resourceVersion: string; continue?: string };
      };
      items.push(...page.items);
      resourceVersion = page.metadata.resourceVersion;
      cont = page.metadata.continue ?? '';
    } while (cont);
    this.#resourceVersion = resourceVersion;
    this.sink.snapshot(items, resourceVersion);
  }

  /** Watches from the last version; resolves when the watch has ended. */
  async #watch(): Promise<WatchEnd> {
    const startedMs = this.now();
    let settle: (end: WatchEnd) => void = () => {};
    const ended = new Promise<WatchEnd>((resolve) => {
      settle = resolve;
    });
    let gone = false;
    let finished = false;
    let abortWanted = false;
    const onEvent = (type: string, obj: T & { code?: number }) => {
      if (type === 'ERROR') {
        // A 410 means the version fell out of the watch cache: re-list.
        gone = obj.code === 410;
        this.sink.note(`${this.path}: watch error ${JSON.stringify(obj)}`);
        abortWanted = true;
        this.#abort?.abort();
        return;
      }
      try {
        if (type !== 'BOOKMARK') this.sink.event(type, obj);
        const rv = obj.metadata?.resourceVersion;
        if (rv) this.#resourceVersion = rv;
      } catch (e) {
        // client-node's Watch swallows callback errors; a lost event must
        // not go unnoticed, so the picture is rebuilt from a fresh list.
        this.sink.note(`${this.path}: checker failed on an event: ${e}`);
        gone = true;
        abortWanted = true;
        this.#abort?.abort();
      }
    };
    const onDone = (err: unknown) => {
      finished = true;
      this.#downSinceMs ??= this.now();
      const status = (err as { statusCode?: number } | null)?.statusCode;
      if (gone || status === 410) return settle('gone');
      if (this.#stopped) return settle('closed');
      // Client-node ends a silent watch after 30 s: a normal restart. A
      // watch the server closes at once is treated as a failure, so a
      // misbehaving server is not hammered.
      const timedOut = (err as Error | null)?.name === 'TimeoutError';
      const brief = this.now() - startedMs < MIN_HEALTHY_WATCH_MS;
      settle(!timedOut && (err || brief) ? 'failed' : 'closed');
    };
    this.#abort = await new Watch(this.kc).watch(
      this.path,
      { resourceVersion: this.#resourceVersion, allowWatchBookmarks: true },
      onEvent,
      onDone
    );
    if (abortWanted || this.#stopped) this.#abort.abort();
    if (!finished) this.#downSinceMs = undefined;
    return ended;
  }

  /** GETs a path with the kubeconfig's credentials; returns parsed JSON. */
  async #get(pathAndQuery: string): Promise<unknown> {
    const server = this.kc.getCurrentCluster()?.server ?? '';
    const url = new URL(pathAndQuery, server);
    const opts: https.RequestOptions = { headers: {} };
    await this.kc.applyToHTTPSOptions(opts);
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = client.get(url, { ...opts, timeout: 30_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === 200) return resolve(JSON.parse(body));
          reject(
            new Error(
              `GET ${url.pathname}: ${res.statusCode} ${body.slice(0, 200)}`
            )
          );
        });
      });
      req.on('timeout', () => req.destroy(new Error('list timed out')));
      req.on('error', reject);
    });
  }
}
