/** The shapes of KubeHttp's requests and answers. */
import type { KubeApiError } from '../../../errors.js';

export type ContentType =
  | 'application/json'
  | 'application/strategic-merge-patch+json'
  | 'application/merge-patch+json'
  | 'application/json-patch+json';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  /** A JSON text, sent verbatim. */
  body?: string;
  contentType?: ContentType;
  /** The answer's media type (default `application/json`: the whole object). */
  accept?: string;
}

/** How an answer came: its latency, and the error a non-2xx one is. */
export interface ApiAnswer {
  /** From sending the request to the answer's headers. */
  latencyMs: number;
  error?: KubeApiError;
}
