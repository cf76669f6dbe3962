import { describe, expect, it } from 'vitest';
import { describeNetworkFailure } from '#lib/cli/describe-network-failure.js';

/** Returns an error shaped like node's system and TLS errors. */
const systemError = (fields: Record<string, unknown>): Error =>
  Object.assign(new Error(String(fields.code)), fields);

describe('describeNetworkFailure', () => {
  it.each([
    {
      name: 'an unknown host',
      error: systemError({ code: 'ENOTFOUND', hostname: 'api.example.com' }),
      layer: 'dns',
      message: 'DNS: host api.example.com not found (ENOTFOUND)',
    },
    {
      name: 'a lookup that failed for now',
      error: systemError({ code: 'EAI_AGAIN', hostname: 'api.example.com' }),
      layer: 'dns',
      message:
        'DNS: lookup of api.example.com failed for now (EAI_AGAIN); try again',
    },
    {
      name: 'a refused connection',
      error: systemError({
        code: 'ECONNREFUSED',
        address: '127.0.0.1',
        port: 4321,
      }),
      layer: 'tcp',
      message: 'TCP: connection to 127.0.0.1:4321 refused',
    },
    {
      name: 'a connection that timed out',
      error: systemError({ code: 'ETIMEDOUT' }),
      layer: 'tcp',
      message: 'TCP: connection to https://10.0.0.1:6443 timed out',
    },
    {
      name: 'no route',
      error: systemError({
        code: 'EHOSTUNREACH',
        address: '10.0.0.1',
        port: 6443,
      }),
      layer: 'tcp',
      message: 'TCP: no route to 10.0.0.1:6443 (EHOSTUNREACH)',
    },
    {
      name: 'a reset connection',
      error: systemError({ code: 'ECONNRESET' }),
      layer: 'tcp',
      message:
        'TCP: connection to https://10.0.0.1:6443 reset (ECONNRESET); is it an https API server?',
    },
    {
      name: 'a certificate of another CA',
      error: systemError({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }),
      layer: 'tls',
      message:
        'TLS: certificate not signed by the registered CA (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
    },
    {
      name: 'a self-signed certificate',
      error: systemError({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
      layer: 'tls',
      message:
        'TLS: certificate not signed by the registered CA (DEPTH_ZERO_SELF_SIGNED_CERT)',
    },
    {
      name: 'an expired certificate',
      error: systemError({ code: 'CERT_HAS_EXPIRED' }),
      layer: 'tls',
      message: 'TLS: the server certificate expired',
    },
    {
      name: 'a certificate that is not valid yet',
      error: systemError({ code: 'CERT_NOT_YET_VALID' }),
      layer: 'tls',
      message: 'TLS: the server certificate is not valid yet',
    },
    {
      name: 'a certificate for another host',
      error: systemError({
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
        host: '10.0.0.2',
      }),
      layer: 'tls',
      message: 'TLS: the server certificate does not name 10.0.0.2',
    },
    {
      name: 'a server that does not speak TLS',
      error: systemError({ code: 'ERR_SSL_WRONG_VERSION_NUMBER' }),
      layer: 'tls',
      message:
        'TLS: handshake with https://10.0.0.1:6443 failed (ERR_SSL_WRONG_VERSION_NUMBER); is the server speaking https on that port?',
    },
    {
      name: 'another TLS failure',
      error: systemError({ code: 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE' }),
      layer: 'tls',
      message: 'TLS: handshake failed (ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE)',
    },
    {
      name: 'an error without a code',
      error: new Error('socket hang up'),
      layer: 'unknown',
      message: 'connection to https://10.0.0.1:6443 failed: socket hang up',
    },
    {
      name: 'no error at all',
      error: undefined,
      layer: 'unknown',
      message: 'connection to https://10.0.0.1:6443 failed: undefined',
    },
  ])('names $name', ({ error, layer, message }) => {
    // Act
    const failure = describeNetworkFailure(error, 'https://10.0.0.1:6443');
    // Assess
    expect(failure).toEqual({ layer, message });
  });
});
