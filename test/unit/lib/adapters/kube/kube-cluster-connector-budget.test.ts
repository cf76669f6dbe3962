/**
 * The connector ties each connection to the cluster's API budget: every
 * request awaits a token first, and every answer — a watch's opening one
 * alone — is reported as what it says about the server's load: a 429 with
 * its Retry-After, a 5xx read, a 5xx write that is an object's own
 * problem. The API server is a local HTTPS server with canned answers.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterAccessFor } from '#lib/adapters/kube/client/cluster-access.js';
import { ClusterConnector } from '#lib/adapters/kube/kube-cluster-connector.js';
import { ApiErrorReason, isApiError } from '#lib/errors.js';
import type {
  ApiBudget,
  ApiSignal,
  ClusterRecord,
  RequestBudget,
} from '#lib/ports/index.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';
import { FakeLogger } from '#test/helpers/fakes/fake-logger.js';
import { selfSignedKeyPair } from '#test/helpers/self-signed-pem.js';

/** One canned answer of the server. */
interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: string;
  /** How long the server thinks before it answers. */
  delayMs?: number;
}

/** A RequestBudget that records what the connection asks and tells. */
class RecordingBudget implements RequestBudget {
  readonly acquired: ApiBudget[] = [];
  readonly reports: ApiSignal[] = [];
  async acquire(_cluster: string, ceiling: ApiBudget) {
    this.acquired.push(ceiling);
  }
  async report(_cluster: string, _ceiling: ApiBudget, signal: ApiSignal) {
    this.reports.push(signal);
  }
  takeUsage() {
    return { throttled: 0, waitMs: 0 };
  }
}

describe('ClusterConnector with an API budget', () => {
  const answers: Answer[] = [];
  let server: https.Server;
  let record: ClusterRecord;
  let caData: string;

  beforeAll(async () => {
    const pair = selfSignedKeyPair('127.0.0.1', '127.0.0.1');
    caData = Buffer.from(pair.cert).toString('base64');
    server = https.createServer(pair, (_req, res) => {
      const a = answers.shift() ?? { status: 404, body: '{}' };
      setTimeout(() => {
        res.writeHead(a.status, {
          'Content-Type': 'application/json',
          ...a.headers,
        });
        res.end(a.body);
      }, a.delayMs ?? 0);
    });
    await new Promise<void>((resolve) =>
      server.listen(0, '127.0.0.1', resolve)
    );
    const { port } = server.address() as AddressInfo;
    record = {
      id: 'local',
      endpoint: `https://127.0.0.1:${port}`,
      caData: '',
      auth: { type: 'kubeconfig', path: '/nowhere' },
      ownership: 'apps/v1',
      bridgeMode: 'watch',
      apiBudget: { qps: 30, burst: 60 },
    };
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const connect = async () => {
    const budget = new RecordingBudget();
    const connector = new ClusterConnector({
      kubeconfigFiles: () =>
        clusterAccessFor(
          { ...record, caData },
          { type: 'token', token: 'sa-token' }
        ),
      budget,
      clock: new FakeClock(),
      logger: new FakeLogger(),
    });
    return { budget, connection: await connector.connect(record) };
  };

  it('spends the record’s ceiling and reports each answer’s load signal', async () => {
    // Prepare
    const { budget, connection } = await connect();
    const status = (code: number, reason: string) =>
      JSON.stringify({ kind: 'Status', code, reason });
    answers.push(
      { status: 200, body: '{"gitVersion":"v1.33.0"}', delayMs: 60 },
      {
        status: 429,
        headers: { 'Retry-After': '2' },
        body: status(429, 'TooManyRequests'),
      },
      { status: 503, body: status(503, 'ServiceUnavailable') },
      { status: 500, body: status(500, 'InternalError') }
    );
    // Act
    const version = await connection.probe.version();
    const throttled = await connection.probe.version().catch((e: unknown) => e);
    await connection.probe.version().catch(() => undefined);
    await connection.probe.whoAmI().catch(() => undefined);
    connection.close();
    // Assess: the 429 still fails its call (the breaker and the key's
    // backoff see it as before); the budget hears of it too.
    expect(version).toBe('v1.33.0');
    expect(isApiError(throttled, ApiErrorReason.TooManyRequests)).toBe(true);
    expect(budget.acquired).toEqual(Array(4).fill({ qps: 30, burst: 60 }));
    expect(budget.reports.map(({ latencyMs: _, ...s }) => s)).toEqual([
      {},
      { congestion: 'throttled', retryAfterMs: 2_000 },
      { congestion: 'serverError' },
      {},
    ]);
    // The first answer's 60 ms of server time shows in its latency alone.
    expect(budget.reports[0]?.latencyMs).toBeGreaterThanOrEqual(50);
    expect(budget.reports[1]?.latencyMs).toBeLessThan(50);
  });

  it('reports a watch by its opening answer alone, however many events follow', async () => {
    // Prepare
    const { budget, connection } = await connect();
    const event = (name: string) =>
      `${JSON.stringify({ type: 'ADDED', object: { metadata: { name } } })}\n`;
    answers.push({ status: 200, body: event('n1') + event('n2') });
    // Act
    const seen: string[] = [];
    for await (const e of connection.watch.watch(
      'nodes',
      '1',
      60,
      new AbortController().signal
    )) {
      seen.push(e.type);
    }
    connection.close();
    // Assess
    expect(seen).toEqual(['ADDED', 'ADDED']);
    expect(budget.acquired).toHaveLength(1);
    expect(budget.reports).toHaveLength(1);
  });
});
