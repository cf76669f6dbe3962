/**
 * API endpoints of sick clusters for the fleet bench, each behind a
 * kubeconfig file the stack registers like any cluster: `dead` (a port
 * nothing listens on: ECONNREFUSED), `slow` (TLS accepted, no answer ever)
 * and `throttled` (TLS, every request answered 429 with Retry-After). One
 * server per kind serves every cluster of that kind.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { kubeconfigYaml } from '#lib/local-cluster/config-files.js';
import { freePort } from '../../lib/local-cluster/processes.js';
import { selfSignedKeyPair } from '../helpers/self-signed-pem.js';

export type Sickness = 'dead' | 'slow' | 'throttled';

/** Running sick endpoints and a kubeconfig per kind. */
export interface SickEndpoints {
  kubeconfigPath(kind: Sickness): string;
  /** Requests each server received (the dead one receives none). */
  requests: Record<Sickness, number>;
  stop(): Promise<void>;
}

/** Starts the three kinds of sick endpoint. */
export const startSickEndpoints = async (): Promise<SickEndpoints> => {
  const dir = mkdtempSync(path.join(tmpdir(), 'dsr-sick-'));
  const tls = selfSignedKeyPair('sick-cluster', '127.0.0.1');
  const requests: Record<Sickness, number> = {
    dead: 0,
    slow: 0,
    throttled: 0,
  };
  const held = new Set<import('node:http').ServerResponse>();
  const slow = https.createServer(tls, (_req, res) => {
    requests.slow++;
    held.add(res);
    res.on('close', () => held.delete(res));
  });
  const throttled = https.createServer(tls, (_req, res) => {
    requests.throttled++;
    res.writeHead(429, {
      'content-type': 'application/json',
      'retry-after': '1',
    });
    res.end(
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'TooManyRequests',
        code: 429,
        message: 'too many requests',
      })
    );
  });
  const listen = (server: https.Server) =>
    new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () =>
        resolve((server.address() as AddressInfo).port)
      )
    );
  const ports: Record<Sickness, number> = {
    dead: await freePort(),
    slow: await listen(slow),
    throttled: await listen(throttled),
  };
  const files = {} as Record<Sickness, string>;
  for (const kind of ['dead', 'slow', 'throttled'] as const) {
    files[kind] = path.join(dir, `${kind}.kubeconfig`);
    writeFileSync(
      files[kind],
      kubeconfigYaml(
        `https://127.0.0.1:${ports[kind]}`,
        Buffer.from(tls.cert),
        'sick'
      ),
      { mode: 0o600 }
    );
  }
  return {
    kubeconfigPath: (kind) => files[kind],
    requests,
    stop: async () => {
      for (const res of held) res.destroy();
      slow.closeAllConnections();
      throttled.closeAllConnections();
      await Promise.all(
        [slow, throttled].map(
          (s) => new Promise<void>((resolve) => s.close(() => resolve()))
        )
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
