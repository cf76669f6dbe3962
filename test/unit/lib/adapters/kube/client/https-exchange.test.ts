/**
 * A request lost to a kept-alive socket the server closed meanwhile is sent
 * once more on a fresh socket — a GET after a reset, anything after EPIPE —
 * and a reset POST, which the server may have read, is not. A real HTTPS
 * server on loopback drops the first connection at its second request.
 */

import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  httpsExchange,
  isStaleSocketFailure,
} from '#lib/adapters/kube/client/https-exchange.js';
import { selfSignedKeyPair } from '../../../../../helpers/self-signed-pem.js';

describe('httpsExchange', () => {
  const pair = selfSignedKeyPair('127.0.0.1', '127.0.0.1');
  let server: https.Server;
  let agent: https.Agent;
  let url: URL;
  /** Requests seen per socket; the first socket dies at its second. */
  const seen = new Map<Socket, number>();
  let firstSocket: Socket | undefined;
  let answered = 0;

  beforeAll(async () => {
    server = https.createServer(pair, (req, res) => {
      const socket = req.socket;
      firstSocket ??= socket;
      const count = (seen.get(socket) ?? 0) + 1;
      seen.set(socket, count);
      if (socket === firstSocket && count === 2) {
        socket.destroy();
        return;
      }
      req.resume();
      req.on('end', () => {
        answered++;
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = new URL(
      `https://127.0.0.1:${(server.address() as AddressInfo).port}/`
    );
  });

  beforeEach(() => {
    agent?.destroy();
    agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: pair.cert });
    seen.clear();
    firstSocket = undefined;
    answered = 0;
  });

  afterAll(async () => {
    agent?.destroy();
    await new Promise((r) => server.close(r));
  });

  const send = (method: string) =>
    httpsExchange(
      `${method} thing`,
      url,
      { method, agent, timeout: 5_000 },
      method === 'POST' ? '{}' : undefined,
      { requests: 0, bytesRead: 0, bytesWritten: 0 }
    );

  it('sends a GET lost to a kept-alive socket once more, on a fresh one', async () => {
    // Prepare
    await send('GET');
    // Act
    const answer = await send('GET');
    // Assess
    expect(answer.status).toBe(200);
    expect(answered).toBe(2);
    expect(seen.size).toBe(2);
  });

  it('does not send a reset POST again: the server may have read it', async () => {
    // Prepare
    await send('POST');
    // Act
    const failed = await send('POST').catch((e: Error) => e);
    // Assess
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toContain('POST thing');
    expect(answered).toBe(1);
  });

  it.each([
    ['EPIPE', 'POST', true],
    ['EPIPE', 'GET', true],
    ['ECONNRESET', 'GET', true],
    ['ECONNRESET', 'POST', false],
    ['ECONNREFUSED', 'GET', false],
    [undefined, 'GET', false],
  ])('counts %s on a %s as a stale socket: %s', (code, method, stale) => {
    // Act / Assess
    expect(isStaleSocketFailure(code, method)).toBe(stale);
  });
});
