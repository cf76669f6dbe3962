/**
 * One HTTPS request and its whole answer, for KubeHttp: the body sent with
 * a Content-Length, the answer gunzipped, bytes counted into the
 * connection's stats, and the time from sending it to the answer's
 * headers — the server's latency, before a big list's body streams (what
 * the API budget watches).
 */
import type http from 'node:http';
import https from 'node:https';
import { gunzipSync } from 'node:zlib';
import { toError } from '../../../errors.js';
import type { ConnectionStats } from '../../../ports/index.js';
import {
  apiErrorFromNetwork,
  apiErrorFromResponse,
  errorText,
} from './kube-errors.js';
import type { RequestOptions } from './kube-http-types.js';

/**
 * Returns a stopwatch of `req` that starts when the request can go out: a
 * socket assigned and its TLS handshake done. Time queued for one of the
 * agent's sockets (a batch of creates outnumbers them) or spent on a
 * handshake is the client's, not the server's latency.
 */
export const serverStopwatch = (req: http.ClientRequest): (() => number) => {
  let startedAt = performance.now();
  req.once('socket', (socket) => {
    const start = () => {
      startedAt = performance.now();
    };
    if (socket.connecting) socket.once('secureConnect', start);
    else start();
  });
  return () => performance.now() - startedAt;
};

/** Returns `path` on `server` with the query's defined parameters. */
export const urlWithQuery = (
  server: URL,
  path: string,
  query: Record<string, string | number | boolean | undefined> = {}
): URL => {
  const url = new URL(path, server);
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined) url.searchParams.set(k, String(v));
  }
  return url;
};

/** Returns the headers of one request: JSON (or `accept`), gzip, the body's type and length. */
export const requestHeaders = (
  base: https.RequestOptions,
  options: RequestOptions,
  userAgent: string
): Record<string, string> => {
  const headers: Record<string, string> = {
    ...(base.headers as Record<string, string>),
    Accept: options.accept ?? 'application/json',
    // The API server compresses answers over 128 KiB (big lists) when asked.
    'Accept-Encoding': 'gzip',
    'User-Agent': userAgent,
  };
  if (options.body !== undefined) {
    headers['Content-Type'] = options.contentType ?? 'application/json';
    // Else Node sends it chunked; the API server ignores a chunked DELETE
    // body and leaves its bytes to spoil the keep-alive connection.
    headers['Content-Length'] = String(Buffer.byteLength(options.body));
  }
  return headers;
};

/** What came back. */
export interface HttpsAnswer {
  status: number;
  /** The body, decompressed. */
  body: Buffer;
  /** Its media type (`application/json` unless the server said). */
  contentType: string;
  retryAfter: string | undefined;
  /** From sending the request to the answer's headers. */
  latencyMs: number;
}

/** Returns the API error a non-2xx answer carries (none for a 2xx). */
export const answerError = (
  what: string,
  method: string,
  { status, body, contentType, retryAfter }: HttpsAnswer
) =>
  status < 200 || status > 299
    ? apiErrorFromResponse(
        what,
        status,
        errorText(what, contentType, body),
        retryAfter,
        method
      )
    : undefined;

/**
 * Returns whether a request that got no answer failed on a kept-alive
 * socket the server had closed meanwhile (its idle timeout, a thawed
 * Lambda container's socket): EPIPE — the request never reached the server
 * whole — or, for a GET, a reset. A reset POST may have been read, so it
 * is not sent again. Node's documented cure: once more, on a fresh socket.
 */
export const isStaleSocketFailure = (
  code: string | undefined,
  method: string | undefined
): boolean => code === 'EPIPE' || (code === 'ECONNRESET' && method === 'GET');

/** A request lost to a stale kept-alive socket (sent once more). */
class StaleSocketError extends Error {
  constructor(readonly apiError: Error) {
    super(apiError.message);
  }
}

/**
 * A request's options: `timeout` bounds the socket's silence,
 * `totalTimeoutMs` the whole exchange, however steadily the answer comes.
 */
export type ExchangeOptions = https.RequestOptions & {
  timeout: number;
  totalTimeoutMs?: number;
};

/**
 * Returns the answer to one request; a failure to get one (network, TLS,
 * timeout, a bad gzip body, `signal` aborted) rejects with KubeApiError
 * naming `what`. A request lost to a stale kept-alive socket is sent once
 * more.
 */
export const httpsExchange = async (
  what: string,
  url: URL,
  options: ExchangeOptions,
  body: string | undefined,
  stats: ConnectionStats
): Promise<HttpsAnswer> => {
  const once = () => exchangeOnce(what, url, options, body, stats);
  try {
    return await once();
  } catch (e) {
    if (!(e instanceof StaleSocketError)) throw e;
    return once().catch((again: unknown) => {
      throw again instanceof StaleSocketError ? again.apiError : again;
    });
  }
};

const exchangeOnce = (
  what: string,
  url: URL,
  { totalTimeoutMs, ...options }: ExchangeOptions,
  body: string | undefined,
  stats: ConnectionStats
): Promise<HttpsAnswer> =>
  new Promise<HttpsAnswer>((resolve, reject) => {
    let answered = false;
    const req = https.request(url, options, (res) => {
      answered = true;
      const latencyMs = elapsed();
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        stats.bytesRead += c.length;
      });
      res.on('end', () => {
        try {
          const raw = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            body:
              res.headers['content-encoding'] === 'gzip'
                ? gunzipSync(raw)
                : raw,
            contentType: res.headers['content-type'] ?? 'application/json',
            retryAfter: res.headers['retry-after'],
            latencyMs,
          });
        } catch (e) {
          reject(apiErrorFromNetwork(what, toError(e)));
        }
      });
      res.on('error', reject);
    });
    const elapsed = serverStopwatch(req);
    req.on('timeout', () =>
      req.destroy(new Error(`timed out after ${options.timeout} ms`))
    );
    const total =
      totalTimeoutMs === undefined
        ? undefined
        : setTimeout(
            () =>
              req.destroy(
                new Error(`no whole answer within ${totalTimeoutMs} ms`)
              ),
            totalTimeoutMs
          );
    req.once('close', () => clearTimeout(total));
    req.on('error', (e: NodeJS.ErrnoException) => {
      const error = apiErrorFromNetwork(what, e);
      const stale =
        !answered &&
        req.reusedSocket &&
        isStaleSocketFailure(e.code, options.method);
      reject(stale ? new StaleSocketError(error) : error);
    });
    if (body !== undefined) {
      stats.bytesWritten += Buffer.byteLength(body);
      req.end(body);
    } else {
      req.end();
    }
  });

/**
 * Opens a streamed answer (a watch): resolves with it once its headers came,
 * and the time that took; a failure to get them rejects with KubeApiError.
 */
export const openStream = (
  what: string,
  url: URL,
  options: https.RequestOptions
): Promise<{ res: http.IncomingMessage; latencyMs: number }> =>
  new Promise((resolve, reject) => {
    const req = https.request(url, options);
    const elapsed = serverStopwatch(req);
    req.on('response', (res) => resolve({ res, latencyMs: elapsed() }));
    req.on('error', (e) => reject(apiErrorFromNetwork(what, e)));
    req.end();
  });
