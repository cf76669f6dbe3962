/**
 * A local HTTPS server standing in for an API server's version endpoint:
 * it answers every request with a version and records each request's
 * Authorization header, so a test sees what credential (if any) was sent.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedKeyPair } from './self-signed-pem.js';

/** A started loopback server: its URL, its CA, and what reached it. */
export interface LoopbackApiServer {
  endpoint: string;
  /** Base64 of the server certificate's PEM (its own CA). */
  caData: string;
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/** Starts a loopback API server on a free port of 127.0.0.1. */
export const startLoopbackApiServer = async (): Promise<LoopbackApiServer> => {
  const pair = selfSignedKeyPair('127.0.0.1', '127.0.0.1');
  const authorizations: (string | undefined)[] = [];
  const server = https.createServer(pair, (req, res) => {
    authorizations.push(req.headers.authorization);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"gitVersion":"v1.33.0"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caData: Buffer.from(pair.cert).toString('base64'),
    authorizations,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
};
