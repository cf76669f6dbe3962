/**
 * A small JSON-over-HTTPS client for the Kubernetes API. Credentials, CA and
 * TLS settings come from a ClusterAccess; answers stay raw JSON so the sync
 * core sees objects as the server sent them (unknown fields included:
 * ControllerRevision data depends on it) — watches and write answers in
 * protobuf are decoded to that shape — and request bodies are byte-exact.
 */

import https from 'node:https';
import { toError } from '../../../errors.js';
import { USER_AGENT } from '../../../policy/identity.js';
import { KUBE_REQUEST_TIMEOUT_MS } from '../../../policy/time-limits.js';
import type { ConnectionStats, WatchEvent } from '../../../ports/index.js';
import { type ClusterAccess, verifiedServer } from './cluster-access.js';
import {
  answerError,
  httpsExchange,
  requestHeaders,
  urlWithQuery,
} from './https-exchange.js';
import { apiErrorFromNetwork } from './kube-errors.js';
import type { ApiAnswer, Method, RequestOptions } from './kube-http-types.js';
import type { MessageSchema } from './protobuf/message-schema.js';
import {
  METADATA_ANSWER,
  type WrittenMetadata,
  writtenMetadata,
} from './protobuf/partial-object-metadata.js';
import { underDeadline } from './request-signal.js';
import { readWatchStream } from './watch-stream.js';

/** Raw JSON requests against the current context of a KubeConfig. */
export class KubeHttp {
  /** Counters a sync or a benchmark reads. */
  readonly stats: ConnectionStats = {
    requests: 0,
    bytesRead: 0,
    bytesWritten: 0,
  };
  readonly #kubeConfig: ClusterAccess;
  readonly #server: URL;
  readonly #timeoutMs: number;
  readonly #totalTimeoutMs: number;
  readonly #beforeRequest: (() => Promise<void>) | undefined;
  readonly #afterResponse: ((answer: ApiAnswer) => void) | undefined;
  readonly #userAgent: string;
  #agent: https.Agent | undefined;

  constructor({
    kubeConfig,
    timeoutMs = 30_000,
    totalTimeoutMs = KUBE_REQUEST_TIMEOUT_MS,
    beforeRequest,
    afterResponse,
    userAgent = USER_AGENT,
  }: {
    /** clusterAccessFor's, or a client-node KubeConfig. */
    kubeConfig: ClusterAccess;
    /** A socket silent this long fails the request. */
    timeoutMs?: number;
    /** A request not answered whole within this fails, however busy. */
    totalTimeoutMs?: number;
    /** Awaited before every request and watch (the cluster's API budget). */
    beforeRequest?: () => Promise<void>;
    /** Told every answer, a watch's opening one (the API budget adapts). */
    afterResponse?: (answer: ApiAnswer) => void;
    /** The field manager of every write (lib/policy/identity.ts). */
    userAgent?: string;
  }) {
    this.#kubeConfig = kubeConfig;
    this.#server = verifiedServer(kubeConfig);
    this.#timeoutMs = timeoutMs;
    this.#totalTimeoutMs = totalTimeoutMs;
    this.#beforeRequest = beforeRequest;
    this.#afterResponse = afterResponse;
    this.#userAgent = userAgent;
  }

  /** The User-Agent (and field manager) of every request. */
  get userAgent(): string {
    return this.#userAgent;
  }

  /** Closes idle connections. */
  close(): void {
    this.#agent?.destroy();
  }

  async #options(): Promise<https.RequestOptions> {
    const opts: https.RequestOptions = { headers: {} };
    await this.#kubeConfig.applyToHTTPSOptions(opts);
    this.#agent ??= new https.Agent({
      keepAlive: true,
      // A slow-start round of 128 creates queued behind 32 sockets; 64
      // measured 4–9 % faster creates at 5,000 nodes (docs/benchmarks.md).
      maxSockets: 64,
      ca: opts.ca,
      cert: opts.cert,
      key: opts.key,
      servername: opts.servername,
    });
    return { ...opts, agent: this.#agent, rejectUnauthorized: true };
  }

  /**
   * Sends one request and returns the parsed JSON answer; non-2xx answers
   * and network failures throw KubeApiError. `what` names the operation in
   * errors and never carries credentials.
   */
  async request<T = unknown>(
    what: string,
    method: Method,
    path: string,
    options: RequestOptions = {}
  ): Promise<T> {
    const text = await this.requestText(what, method, path, options);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** Sends one request and returns the answer's body as the server sent it. */
  async requestText(
    what: string,
    method: Method,
    path: string,
    options: RequestOptions = {}
  ): Promise<string> {
    return (await this.#send(what, method, path, options)).body.toString();
  }

  /**
   * Sends one write and returns the written object's metadata, asked for
   * alone and in protobuf (partial-object-metadata.ts); an answer that does
   * not decode throws KubeApiError, as a bad gzip body does.
   */
  async requestMetadata(
    what: string,
    method: Method,
    path: string,
    options: Omit<RequestOptions, 'accept'> = {}
  ): Promise<WrittenMetadata> {
    const { body, contentType } = await this.#send(what, method, path, {
      ...options,
      accept: METADATA_ANSWER,
    });
    try {
      return writtenMetadata(what, contentType, body);
    } catch (e) {
      throw apiErrorFromNetwork(what, toError(e));
    }
  }

  async #send(
    what: string,
    method: Method,
    path: string,
    options: RequestOptions
  ): Promise<{ body: Buffer; contentType: string }> {
    const url = urlWithQuery(this.#server, path, options.query);
    const answer = await underDeadline(
      what,
      this.#beforeRequest,
      async (signal) => {
        const base = await this.#options();
        this.stats.requests++;
        return httpsExchange(
          what,
          url,
          {
            ...base,
            method,
            headers: requestHeaders(base, options, this.#userAgent),
            timeout: this.#timeoutMs,
            totalTimeoutMs: this.#totalTimeoutMs,
            ...(signal ? { signal } : {}),
          },
          options.body,
          this.stats
        );
      }
    );
    const { body, contentType, latencyMs } = answer;
    const error = answerError(what, method, answer);
    this.#afterResponse?.(error ? { latencyMs, error } : { latencyMs });
    if (error) throw error;
    return { body, contentType };
  }

  /**
   * Streams the events of a watch on `path` until the server ends it (or
   * `signal` aborts); a non-2xx answer or an in-stream ERROR event throws
   * KubeApiError (410 ⇒ Gone: relist and start over). With `protobuf`, it
   * asks for the protobuf stream (about half the bytes) and decodes its
   * objects by that schema; a server that answers JSON is read as JSON.
   */
  async *watch<T>(
    what: string,
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    signal?: AbortSignal,
    protobuf?: MessageSchema
  ): AsyncGenerator<WatchEvent<T>> {
    const url = urlWithQuery(this.#server, path, { ...query, watch: true });
    await this.#beforeRequest?.();
    const base = await this.#options();
    this.stats.requests++;
    yield* readWatchStream<T>(what, url, {
      base,
      userAgent: this.#userAgent,
      stats: this.stats,
      afterResponse: this.#afterResponse,
      signal,
      protobuf,
    });
  }

  /**
   * Returns every item of a list (trimmed by `project` page by page, so
   * whole objects never pile up) and the list's resourceVersion (to watch
   * from), following `continue` tokens.
   */
  async listWithVersion<T>(
    what: string,
    path: string,
    query: Record<string, string | number | undefined> = {},
    pageSize = 500,
    project?: (item: T) => T
  ): Promise<{ items: T[]; resourceVersion: string }> {
    const items: T[] = [];
    let token: string | undefined;
    let resourceVersion = '';
    do {
      const page = await this.request<{
        items?: T[];
        metadata?: { continue?: string; resourceVersion?: string };
      }>(what, 'GET', path, {
        // Later pages continue the first one's snapshot; the server refuses
        // a resourceVersion beside a continue token.
        query:
          token === undefined
            ? { ...query, limit: pageSize }
            : {
                ...query,
                resourceVersion: undefined,
                resourceVersionMatch: undefined,
                limit: pageSize,
                continue: token,
              },
      });
      for (const item of page.items ?? []) items.push(project?.(item) ?? item);
      resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
      token = page.metadata?.continue || undefined;
    } while (token !== undefined);
    return { items, resourceVersion };
  }

  /** Returns every item of a list, following `continue` tokens. */
  async list<T>(
    what: string,
    path: string,
    query: Record<string, string | number | undefined> = {},
    pageSize = 500
  ): Promise<T[]> {
    return (await this.listWithVersion<T>(what, path, query, pageSize)).items;
  }
}
