/**
 * The emulated Lambda containers: a container dies between two of its
 * I/O calls and none of its later requests leaves the process; the next
 * invocation gets a fresh container; a lost delete brings the batch back.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AwsWiring } from '#lib/wiring/aws.js';
import { requestKind } from '../../helpers/container-scope.js';
import { InvocationKilledError } from '../../helpers/esm-poller.js';
import {
  type ContainerFaults,
  type KillPoint,
  LambdaContainers,
} from '../../helpers/lambda-containers.js';
import { lambdaContext } from '../../helpers/lambda-context.js';

const received: string[] = [];
const server = http.createServer((req, res) => {
  received.push(req.url ?? '');
  res.end('ok');
});
let base = '';

beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

const get = (url: string) =>
  new Promise<void>((resolve, reject) => {
    http.get(url, (r) => r.resume().on('end', resolve)).on('error', reject);
  });

/** Faults that kill the next invocation at `kill`, and count what they applied. */
const faultsOf = (
  kill?: KillPoint,
  delivery?: ReturnType<ContainerFaults['delivery']>
) => {
  const applied: string[] = [];
  let pending = kill;
  const faults: ContainerFaults = {
    killPoint: () => {
      const k = pending;
      pending = undefined;
      return k;
    },
    delivery: () => delivery,
    deliveryDelayMs: () => 0,
    skewMs: () => 0,
    applied: (k) => applied.push(k),
  };
  return { faults, applied };
};

const wiring = () =>
  ({ sessions: { close: async () => undefined } }) as unknown as AwsWiring;

/** A handler making three requests in a row, tagged with the invocation. */
const threeCalls = () => async (event: { tag: string }) => {
  for (let i = 1; i <= 3; i++) await get(`${base}/${event.tag}/${i}`);
  return 'done';
};

describe('LambdaContainers', () => {
  it('kills an invocation before its second request is sent; nothing of it leaves afterwards', async () => {
    // Prepare
    const { faults, applied } = faultsOf({ atRequest: 2, when: 'before-send' });
    const containers = new LambdaContainers(wiring, faults);
    const handler = containers.host.host('reconcile', threeCalls);

    // Act
    const outcome = await handler({ tag: 'a' }, lambdaContext()).catch(
      (e: unknown) => e
    );
    await new Promise((r) => setTimeout(r, 100));

    // Assess
    expect(outcome).toBeInstanceOf(InvocationKilledError);
    expect(received.filter((u) => u.startsWith('/a/'))).toEqual(['/a/1']);
    expect(applied).toEqual(['kill-reconcile']);
    expect(containers.counts).toMatchObject({ started: 1, killed: 1 });
  });

  it('kills after the answer of a request: the request landed, the invocation is dead', async () => {
    const { faults } = faultsOf({ atRequest: 2, when: 'after-answer' });
    const containers = new LambdaContainers(wiring, faults);
    const handler = containers.host.host('requeue', threeCalls);

    const outcome = await handler({ tag: 'b' }, lambdaContext()).catch(
      (e: unknown) => e
    );
    await new Promise((r) => setTimeout(r, 100));

    expect(outcome).toBeInstanceOf(InvocationKilledError);
    expect(received.filter((u) => u.startsWith('/b/'))).toEqual([
      '/b/1',
      '/b/2',
    ]);
  });

  it('gives the next invocation a fresh container after a kill, and reuses a warm one otherwise', async () => {
    const { faults } = faultsOf({ atRequest: 1, when: 'before-send' });
    const containers = new LambdaContainers(wiring, faults);
    const handler = containers.host.host('reconcile', threeCalls);

    await handler({ tag: 'c' }, lambdaContext()).catch(() => undefined);
    await handler({ tag: 'd' }, lambdaContext());
    await handler({ tag: 'e' }, lambdaContext());

    expect(containers.counts).toMatchObject({ started: 2, killed: 1 });
    expect(received.filter((u) => u.startsWith('/d/'))).toHaveLength(3);
  });

  it('counts no kill when the kill point lies beyond the invocation, and disarms it when the invocation ends', async () => {
    const { faults, applied } = faultsOf({ atRequest: 5, when: 'before-send' });
    const containers = new LambdaContainers(wiring, faults);
    const handler = containers.host.host('reconcile', threeCalls);

    await handler({ tag: 'g' }, lambdaContext());
    await handler({ tag: 'h' }, lambdaContext());

    // The second invocation's requests 4–6 of the warm container pass.
    expect(received.filter((u) => u.startsWith('/h/'))).toHaveLength(3);
    expect(applied).toEqual([]);
    expect(containers.counts).toMatchObject({ started: 1, killed: 0 });
  });

  it('kills an invocation that outlives its timeout, as Lambda ends the sandbox', async () => {
    const { faults } = faultsOf();
    const containers = new LambdaContainers(wiring, faults);
    const slow = () => async () => {
      await new Promise((r) => setTimeout(r, 300));
      await get(`${base}/late`);
    };
    const handler = containers.host.host('reconcile', slow);

    const outcome = await handler({}, lambdaContext({ timeoutMs: 100 })).catch(
      (e: unknown) => e
    );
    await new Promise((r) => setTimeout(r, 400));

    expect(outcome).toBeInstanceOf(InvocationKilledError);
    expect(received).not.toContain('/late');
    expect(containers.counts.timedOut).toBe(1);
  });

  it('reports every message failed when the delete is lost (redelivery)', async () => {
    const { faults, applied } = faultsOf(undefined, { kind: 'sqs-redelivery' });
    const containers = new LambdaContainers(wiring, faults);
    const handler = containers.host.host(
      'reconcile',
      () => async () => undefined
    );

    const out = await handler(
      { Records: [{ messageId: 'm1' }, { messageId: 'm2' }] },
      lambdaContext()
    );

    expect(out).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }],
    });
    expect(applied).toEqual(['sqs-redelivery']);
  });

  it('delivers a duplicated batch twice, the second after the first ended (a FIFO group is never in flight twice)', async () => {
    const { faults } = faultsOf(undefined, { kind: 'sqs-duplicate' });
    const containers = new LambdaContainers(wiring, faults);
    const handler = containers.host.host('reconcile', threeCalls);

    await handler({ tag: 'f' }, lambdaContext());

    expect(received.filter((u) => u.startsWith('/f/'))).toEqual([
      '/f/1',
      '/f/2',
      '/f/3',
      '/f/1',
      '/f/2',
      '/f/3',
    ]);
    // The second delivery lands on a cold container.
    expect(containers.counts.started).toBe(2);
  });

  it('counts the bytes the containers of each function read from a destination, dead ones included', async () => {
    // Prepare: the first invocation dies after its second answer.
    const { faults } = faultsOf({ atRequest: 2, when: 'after-answer' });
    const containers = new LambdaContainers(wiring, faults);
    const handler = containers.host.host('reconcile', threeCalls);
    const other = containers.host.host('requeue', threeCalls);
    const destination = new URL(base).host;

    // Act
    await handler({ tag: 'k' }, lambdaContext()).catch(() => undefined);
    const afterKill = containers.trafficOf('reconcile', destination).bytesRead;
    await handler({ tag: 'l' }, lambdaContext());
    await other({ tag: 'm' }, lambdaContext());

    // Assess: each answer is its headers and "ok"; two answers, then three.
    expect(afterKill).toBeGreaterThan(2 * 'ok'.length);
    const { byKind, ...reconcile } = containers.trafficOf(
      'reconcile',
      destination
    );
    expect(reconcile.requests).toBe(5);
    expect(reconcile.bytesRead).toBeCloseTo((afterKill / 2) * 5, -1);
    expect(
      containers.trafficOf('requeue', destination).bytesRead
    ).toBeGreaterThan(0);
    expect(byKind).toEqual({ GET: reconcile });
    expect(containers.trafficOf('reconcile', '127.0.0.1:1')).toEqual({
      requests: 0,
      bytesRead: 0,
      byKind: {},
    });
  });

  it('records the time of each invocation and how it ended', async () => {
    const { faults } = faultsOf({ atRequest: 1, when: 'before-send' });
    const containers = new LambdaContainers(wiring, faults);
    const handler = containers.host.host('reconcile', threeCalls);
    const failing = containers.host.host('requeue', () => async () => {
      await new Promise((r) => setTimeout(r, 50));
      throw new Error('sync failed');
    });

    await handler({ tag: 'n' }, lambdaContext()).catch(() => undefined);
    await handler({ tag: 'o' }, lambdaContext());
    await failing({}, lambdaContext()).catch(() => undefined);

    expect(containers.invocations.map((i) => [i.fn, i.outcome])).toEqual([
      ['reconcile', 'killed'],
      ['reconcile', 'returned'],
      ['requeue', 'threw'],
    ]);
    expect(containers.invocations[2]?.ms).toBeGreaterThanOrEqual(45);
  });

  it('hosts without faults: only the timeout ends a container', async () => {
    const containers = new LambdaContainers(wiring);
    const handler = containers.host.host('reconcile', threeCalls);

    await handler({ tag: 'p' }, lambdaContext());
    await handler({ tag: 'q' }, lambdaContext());

    expect(containers.counts).toEqual({ started: 1, killed: 0, timedOut: 0 });
    expect(received.filter((u) => u.startsWith('/q/'))).toHaveLength(3);
  });
});

describe('requestKind', () => {
  it.each([
    [
      'GET',
      '/api/v1/namespaces/ns/pods?watch=true&resourceVersion=5',
      'GET pods watch',
    ],
    ['GET', '/api/v1/nodes?limit=500', 'GET nodes'],
    ['POST', '/api/v1/namespaces/ns/pods', 'POST pods'],
    ['DELETE', '/api/v1/namespaces/ns/pods/agent-x', 'DELETE pods'],
    [
      'PUT',
      '/apis/apps/v1/namespaces/ns/daemonsets/agent/status',
      'PUT daemonsets',
    ],
    [
      'GET',
      '/apis/apps.dsr.dev/v1beta1/advanceddaemonsets?watch=1',
      'GET advanceddaemonsets watch',
    ],
    ['POST', '/', 'POST'],
  ])('%s %s counts as %s', (method, path, kind) => {
    expect(requestKind(method, path)).toBe(kind);
  });
});
