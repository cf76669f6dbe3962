/** A throwaway certificate for tests that need a well-formed CA bundle. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Returns a fresh self-signed EC certificate and its key (PEM) made by
 * openssl; `ipAddress` makes it valid for a server on that address.
 */
export const selfSignedKeyPair = (
  commonName = 'test-ca',
  ipAddress?: string
): { cert: string; key: string } => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsr-ca-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        'ca.key',
        '-out',
        'ca.crt',
        '-days',
        '1',
        '-subj',
        `/CN=${commonName}`,
        ...(ipAddress ? ['-addext', `subjectAltName=IP:${ipAddress}`] : []),
      ],
      { cwd: dir, stdio: 'ignore' }
    );
    return {
      cert: readFileSync(path.join(dir, 'ca.crt'), 'utf8'),
      key: readFileSync(path.join(dir, 'ca.key'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/** Returns a fresh self-signed EC certificate (PEM) made by openssl. */
export const selfSignedPem = (commonName = 'test-ca'): string =>
  selfSignedKeyPair(commonName).cert;
