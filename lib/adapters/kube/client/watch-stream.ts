/**
 * One watch request's answer as a stream of events: opens it, turns a
 * non-2xx answer into KubeApiError, and decodes the events as protobuf when
 * asked for and answered so, else as JSON lines (watch-events.ts). KubeHttp
 * supplies the connection options and the budget's hooks.
 */
import type https from 'node:https';
import type { ConnectionStats, WatchEvent } from '../../../ports/index.js';
import { openStream } from './https-exchange.js';
import { apiErrorFromStream } from './kube-errors.js';
import type { ApiAnswer } from './kube-http-types.js';
import type { MessageSchema } from './protobuf/message-schema.js';
import {
  PROTOBUF_WATCH_MEDIA_TYPE,
  protobufWatchEvents,
} from './protobuf/protobuf-watch-events.js';
import { watchEvents } from './watch-events.js';

/** What one watch stream reads with, besides its URL. */
export interface WatchStreamOptions {
  /** The connection's options (agent, credentials, headers). */
  base: https.RequestOptions;
  userAgent: string;
  stats: ConnectionStats;
  /** Told the opening answer (the API budget adapts). */
  afterResponse: ((answer: ApiAnswer) => void) | undefined;
  signal: AbortSignal | undefined;
  /** Asks for the protobuf stream, decoded by this schema. */
  protobuf: MessageSchema | undefined;
}

/**
 * Streams the events of the watch at `url` until the server ends it (or
 * the signal aborts, which ends it quietly); a non-2xx answer or an
 * in-stream ERROR event throws KubeApiError.
 */
export async function* readWatchStream<T>(
  what: string,
  url: URL,
  o: WatchStreamOptions
): AsyncGenerator<WatchEvent<T>> {
  const { base, protobuf, signal } = o;
  const { res, latencyMs } = await openStream(what, url, {
    ...base,
    method: 'GET',
    headers: {
      ...(base.headers as Record<string, string>),
      Accept: protobuf
        ? `${PROTOBUF_WATCH_MEDIA_TYPE}, application/json`
        : 'application/json',
      'User-Agent': o.userAgent,
    },
    signal,
  });
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 299) {
    const error = await apiErrorFromStream(what, res);
    o.afterResponse?.({ latencyMs, error });
    throw error;
  }
  // A watch counts by its opening answer; its stream is not a request.
  o.afterResponse?.({ latencyMs });
  const answered = res.headers['content-type'] ?? '';
  try {
    yield* protobuf && answered.startsWith(PROTOBUF_WATCH_MEDIA_TYPE)
      ? protobufWatchEvents<T>(what, res, o.stats, protobuf)
      : watchEvents<T>(what, res, o.stats);
  } catch (e) {
    if (signal?.aborted) return;
    throw e;
  } finally {
    res.destroy();
  }
}
