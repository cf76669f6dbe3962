/**
 * Translates Kubernetes API answers into the typed errors of lib/errors.ts.
 * Only this folder sees HTTP status codes and Status bodies.
 */
import type { IncomingMessage } from 'node:http';
import {
  ApiErrorReason,
  KubeApiError,
  NAMESPACE_TERMINATING_CAUSE,
} from '../../../errors.js';
import {
  PROTOBUF_MEDIA_TYPE,
  protobufStatus,
} from './protobuf/protobuf-object.js';

interface StatusBody {
  kind?: string;
  message?: string;
  reason?: string;
  details?: { causes?: { reason?: string }[]; retryAfterSeconds?: number };
}

const reasonFor = (status: number, body: StatusBody): ApiErrorReason => {
  switch (status) {
    case 401:
      return ApiErrorReason.Unauthorized;
    case 403:
      return ApiErrorReason.Forbidden;
    case 404:
      return ApiErrorReason.NotFound;
    case 409:
      return body.reason === 'AlreadyExists'
        ? ApiErrorReason.AlreadyExists
        : ApiErrorReason.Conflict;
    case 410:
      return ApiErrorReason.Gone;
    case 422:
      return ApiErrorReason.Invalid;
    case 429:
      return ApiErrorReason.TooManyRequests;
    default:
      return status >= 500
        ? ApiErrorReason.ServerError
        : ApiErrorReason.Unknown;
  }
};

const parseStatus = (text: string): StatusBody => {
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null
      ? (parsed as StatusBody)
      : {};
  } catch {
    return {};
  }
};

/**
 * Returns the typed error for a non-2xx answer to `what` (e.g.
 * `create pod kube-system/agent-`).
 */
export const apiErrorFromResponse = (
  what: string,
  status: number,
  bodyText: string,
  retryAfterHeader: string | undefined,
  method = 'GET'
): KubeApiError => {
  const body = parseStatus(bodyText);
  const causes = (body.details?.causes ?? [])
    .map((c) => c.reason ?? '')
    .filter((r) => r !== '');
  // The namespace lifecycle admission answers 403 with this cause.
  if (body.reason === NAMESPACE_TERMINATING_CAUSE) {
    causes.push(NAMESPACE_TERMINATING_CAUSE);
  }
  const retryAfter = Number(
    retryAfterHeader ?? body.details?.retryAfterSeconds
  );
  return new KubeApiError(
    `${what}: ${status} ${body.reason ?? ''} ${body.message ?? bodyText.slice(0, 200)}`.trim(),
    {
      reason: reasonFor(status, body),
      statusCode: status,
      causes,
      ...(Number.isFinite(retryAfter) ? { retryAfterSeconds: retryAfter } : {}),
      write: method !== 'GET',
      ...(body.message === undefined ? {} : { serverMessage: body.message }),
    }
  );
};

/**
 * Returns the typed error for a non-2xx answer to a streamed request (a
 * watch), reading its body: JSON, or protobuf when the request accepted it.
 */
export const apiErrorFromStream = async (
  what: string,
  res: IncomingMessage
): Promise<KubeApiError> => {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return apiErrorFromResponse(
    what,
    res.statusCode ?? 0,
    errorText(what, res.headers['content-type'] ?? '', Buffer.concat(chunks)),
    res.headers['retry-after']
  );
};

/**
 * The JSON text of an error answer's body, for apiErrorFromResponse: as
 * sent, or a protobuf Status read back (one that does not parse says
 * nothing), which the server sends when the request accepted protobuf.
 */
export const errorText = (
  what: string,
  contentType: string,
  body: Buffer
): string => {
  if (!contentType.startsWith(PROTOBUF_MEDIA_TYPE)) {
    return body.toString('utf8');
  }
  try {
    return protobufStatus(what, body).text;
  } catch {
    return '';
  }
};

/** Returns the typed error for a request that got no HTTP answer. */
export const apiErrorFromNetwork = (what: string, cause: Error): KubeApiError =>
  new KubeApiError(
    `${what}: ${cause.message}`,
    { reason: ApiErrorReason.Unreachable, statusCode: 0 },
    { cause }
  );
