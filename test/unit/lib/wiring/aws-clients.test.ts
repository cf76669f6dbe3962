/**
 * The SDK clients' timeouts: a call to an endpoint that accepts and never
 * answers gives up after AWS_REQUEST_TIMEOUT_MS instead of holding the
 * invocation to its timeout. A loopback TCP server plays the endpoint.
 */
import net from 'node:net';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AWS_REQUEST_TIMEOUT_MS } from '#lib/policy/time-limits.js';
import { commonClientOptions } from '#lib/wiring/aws-clients.js';

describe('commonClientOptions', () => {
  let server: net.Server;
  let port = 0;
  const sockets: net.Socket[] = [];

  beforeAll(async () => {
    // Accepts the connection and reads the request; never answers.
    server = net.createServer((s) => {
      sockets.push(s);
      s.resume();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as net.AddressInfo).port;
  });

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  it('gives up on a call whose answer never comes after the request timeout', async () => {
    // Prepare
    const client = new DynamoDBClient({
      ...commonClientOptions({
        region: 'us-east-1',
        credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
      }),
      endpoint: `http://127.0.0.1:${port}`,
      maxAttempts: 1,
    });
    const started = performance.now();
    // Act
    const call = client.send(new DescribeTableCommand({ TableName: 't' }));
    // Assess
    await expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
    const tookMs = performance.now() - started;
    expect(tookMs).toBeGreaterThanOrEqual(AWS_REQUEST_TIMEOUT_MS - 100);
    expect(tookMs).toBeLessThan(AWS_REQUEST_TIMEOUT_MS + 2_000);
    client.destroy();
  }, 15_000);
});
