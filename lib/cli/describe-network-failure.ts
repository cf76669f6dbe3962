/**
 * Names what failed when a request to an API server got no HTTP answer:
 * name resolution, the TCP connection or the TLS handshake, from the error
 * codes of node:dns, node:net and node:tls (OpenSSL's verify codes).
 */

/** The layer a connection failed at. */
export type NetworkLayer = 'dns' | 'tcp' | 'tls' | 'unknown';

/** What failed, for an operator. */
export interface NetworkFailure {
  layer: NetworkLayer;
  message: string;
}

/** OpenSSL verify codes that mean "no trusted chain to the given CA". */
const UNTRUSTED_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_CHAIN_TOO_LONG',
]);

/** node:dns codes of a failed lookup. */
const DNS_CODES: ReadonlySet<string> = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'ENODATA',
]);

interface SystemErrorFields {
  code?: unknown;
  hostname?: unknown;
  address?: unknown;
  port?: unknown;
  host?: unknown;
}

/**
 * Returns what failed and a one-line message naming it, e.g.
 * `TLS: certificate not signed by the registered CA`. `server` (host:port or
 * URL) names the target when the error does not.
 *
 * @example
 * describeNetworkFailure(err.cause, 'https://10.0.0.1:6443').message;
 * // 'TCP: connection to 10.0.0.1:6443 refused'
 */
export const describeNetworkFailure = (
  error: unknown,
  server: string
): NetworkFailure => {
  const e = (
    typeof error === 'object' && error !== null ? error : {}
  ) as SystemErrorFields & { message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const text = typeof e.message === 'string' ? e.message : String(error);
  const target =
    typeof e.address === 'string' && typeof e.port === 'number'
      ? `${e.address}:${e.port}`
      : server;
  if (DNS_CODES.has(code)) {
    const host = typeof e.hostname === 'string' ? e.hostname : server;
    return {
      layer: 'dns',
      message:
        code === 'EAI_AGAIN'
          ? `DNS: lookup of ${host} failed for now (EAI_AGAIN); try again`
          : `DNS: host ${host} not found (${code})`,
    };
  }
  if (UNTRUSTED_CODES.has(code)) {
    return {
      layer: 'tls',
      message: `TLS: certificate not signed by the registered CA (${code})`,
    };
  }
  switch (code) {
    case 'ECONNREFUSED':
      return { layer: 'tcp', message: `TCP: connection to ${target} refused` };
    case 'ETIMEDOUT':
      return {
        layer: 'tcp',
        message: `TCP: connection to ${target} timed out`,
      };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return {
        layer: 'tcp',
        message: `TCP: no route to ${target} (${code})`,
      };
    case 'ECONNRESET':
    case 'EPIPE':
      return {
        layer: 'tcp',
        message: `TCP: connection to ${target} reset (${code}); is it an https API server?`,
      };
    case 'CERT_HAS_EXPIRED':
      return { layer: 'tls', message: 'TLS: the server certificate expired' };
    case 'CERT_NOT_YET_VALID':
      return {
        layer: 'tls',
        message: 'TLS: the server certificate is not valid yet',
      };
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return {
        layer: 'tls',
        message: `TLS: the server certificate does not name ${typeof e.host === 'string' ? e.host : server}`,
      };
    case 'EPROTO':
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
      return {
        layer: 'tls',
        message: `TLS: handshake with ${target} failed (${code}); is the server speaking https on that port?`,
      };
  }
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) {
    return { layer: 'tls', message: `TLS: handshake failed (${code})` };
  }
  return {
    layer: 'unknown',
    message: `connection to ${target} failed: ${text}`,
  };
};
