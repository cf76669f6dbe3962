/**
 * KubeHttp's bounds on a request under way: a sync's deadline (the request
 * signal) aborts it, a total timeout ends it however steadily the answer
 * trickles in (the socket's idle timeout never fires then), and the Event
 * recorder's flush stops at the deadline. A real HTTPS server on loopback
 * answers slowly without going idle.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterAccess } from '#lib/adapters/kube/client/cluster-access.js';
import { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { withRequestSignal } from '#lib/adapters/kube/client/request-signal.js';
import { KubeEventRecorder } from '#lib/adapters/kube/kube-event-recorder.js';
import {
  ApiErrorReason,
  KubeApiError,
  mayHaveBeenApplied,
  SyncDeadlineError,
} from '#lib/errors.js';
import { FakeLogger } from '#test/helpers/fakes/fake-logger.js';
import { selfSignedKeyPair } from '#test/helpers/self-signed-pem.js';

describe('KubeHttp under a deadline', () => {
  const pair = selfSignedKeyPair('127.0.0.1', '127.0.0.1');
  let server: https.Server;
  let access: ClusterAccess;
  const open = new Set<NodeJS.Timeout>();

  beforeAll(async () => {
    // Sends the headers, then a space every 50 ms, and never ends.
    server = https.createServer(pair, (req, res) => {
      req.resume();
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const drip = setInterval(() => res.write(' '), 50);
      open.add(drip);
      res.on('close', () => {
        clearInterval(drip);
        open.delete(drip);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    access = {
      getCurrentCluster: () => ({
        name: 'loopback',
        server: `https://127.0.0.1:${port}`,
      }),
      applyToHTTPSOptions: async (opts) => {
        opts.ca = pair.cert;
      },
    };
  });

  afterAll(async () => {
    for (const t of open) clearInterval(t);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('aborts a request under way at its deadline, as a deadline failure whose write may have landed', async () => {
    // Prepare: idle timeout and total timeout far away.
    const http = new KubeHttp({
      kubeConfig: access,
      timeoutMs: 10_000,
      totalTimeoutMs: 10_000,
    });
    const started = performance.now();
    // Act
    const error = await withRequestSignal(AbortSignal.timeout(300), () =>
      http.request('create pod', 'POST', '/api/v1/namespaces/x/pods', {
        body: '{}',
      })
    ).catch((e: unknown) => e);
    // Assess
    const tookMs = performance.now() - started;
    expect(error).toBeInstanceOf(SyncDeadlineError);
    expect(mayHaveBeenApplied(error)).toBe(true);
    expect(tookMs).toBeLessThan(2_000);
    http.close();
  });

  it('refuses a request whose deadline already passed, without sending it', async () => {
    // Prepare
    const http = new KubeHttp({ kubeConfig: access });
    const aborted = AbortSignal.abort();
    // Act
    const error = await withRequestSignal(aborted, () =>
      http.request('list nodes', 'GET', '/api/v1/nodes')
    ).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(SyncDeadlineError);
    expect(mayHaveBeenApplied(error)).toBe(false);
    expect(http.stats.requests).toBe(0);
    http.close();
  });

  it('fails a request whose answer trickles in past the total timeout, though the socket never goes idle', async () => {
    // Prepare
    const http = new KubeHttp({
      kubeConfig: access,
      timeoutMs: 10_000,
      totalTimeoutMs: 300,
    });
    const started = performance.now();
    // Act
    const error = await http
      .request('list nodes', 'GET', '/api/v1/nodes')
      .catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).reason).toBe(ApiErrorReason.Unreachable);
    expect(performance.now() - started).toBeLessThan(2_000);
    http.close();
  });

  it('stops the Event flush at the deadline and logs the events it dropped once, with their count', async () => {
    // Prepare: three Events queued against the slow server.
    const http = new KubeHttp({
      kubeConfig: access,
      timeoutMs: 10_000,
      totalTimeoutMs: 10_000,
    });
    const logger = new FakeLogger();
    const events = new KubeEventRecorder({ http, logger });
    const deadline = AbortSignal.timeout(300);
    const ds = { metadata: { name: 'agent', namespace: 'x', uid: 'u' } };
    await withRequestSignal(deadline, async () => {
      for (const reason of ['A', 'B', 'C']) {
        await events.record(ds, 'Normal', reason, 'message');
      }
    });
    const started = performance.now();
    // Act
    await events.flush(deadline);
    // Assess
    expect(performance.now() - started).toBeLessThan(2_000);
    const drops = logger.lines.filter(
      (l) =>
        l.message === 'sync deadline passed; dropped events not yet written'
    );
    expect(drops).toHaveLength(1);
    expect(drops[0]?.fields).toEqual({ dropped: 3 });
    await events.flush();
    expect(events.writes).toBe(1);
    http.close();
  });
});
