/**
 * What kubectl prints for an error (staging/src/k8s.io/kubectl/pkg/cmd/util/
 * helpers.go `StandardErrorMessage`): a refused connection names the
 * server, a 401 says to log in, another API Status is `Error from server
 * (REASON): MESSAGE`, and anything else is `error: …`.
 */
import { ApiErrorReason, KubeApiError } from '../../errors.js';
import { describeError } from '../describe-error.js';

/** Returns host:port of a server URL (kubectl names the server so). */
const hostOf = (server: string | undefined): string | undefined => {
  if (server === undefined) return undefined;
  try {
    return new URL(server).host;
  } catch {
    return server;
  }
};

/** Returns the system error code of an error's causes, if any. */
const codeOf = (e: unknown): string | undefined => {
  let current: unknown = e;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
};

/**
 * Returns kubectl's line for a failure to reach or be let into the API
 * server, or undefined for any other error; `server` is the kubeconfig's.
 */
export const kubectlApiErrorLine = (
  e: unknown,
  server: string | undefined
): string | undefined => {
  if (!(e instanceof KubeApiError)) return undefined;
  if (e.reason === ApiErrorReason.Unreachable) {
    const cause = e.cause as { address?: string; port?: number } | undefined;
    const host =
      hostOf(server) ??
      (cause?.address ? `${cause.address}:${cause.port}` : 'the server');
    return codeOf(e) === 'ECONNREFUSED'
      ? `The connection to the server ${host} was refused - did you specify the right host or port?`
      : `Unable to connect to the server: ${describeError(e.cause ?? e)}`;
  }
  if (e.reason === ApiErrorReason.Unauthorized) {
    return `error: You must be logged in to the server (${e.serverMessage ?? 'Unauthorized'})`;
  }
  if (e.reason === ApiErrorReason.Forbidden) {
    return `Error from server (Forbidden): ${e.serverMessage ?? e.message}`;
  }
  return undefined;
};
