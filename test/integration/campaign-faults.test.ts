/**
 * The fault campaign's injectors against the real parts: the API fault
 * proxy in front of the test bed's kube-apiserver (TLS verified on both
 * sides) as the product's own client sees it, and the AWS proxy's
 * throttling and lost answers as the AWS SDK sees them on DynamoDB Local.
 */
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PARTITION_KEY } from '#lib/adapters/dynamodb/table-schema.js';
import { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { POD } from '#lib/adapters/kube/client/protobuf/pod-schema.js';
import { ApiErrorReason, isApiError, KubeApiError } from '#lib/errors.js';
import { CountingProxy } from '../bench/counting-proxy.js';
import { ApiFaultProxy } from '../campaign/faults/api-fault-proxy.js';
import {
  createTestTable,
  readItem,
  type TestTable,
} from '../helpers/dynamo-table.js';

/** The admin kubeconfig's server, CA and token. */
const admin = () => {
  const kc = new KubeConfig();
  kc.loadFromFile(inject('kubeconfigPath'));
  const cluster = kc.getCurrentCluster();
  return {
    server: cluster?.server ?? '',
    ca: Buffer.from(cluster?.caData ?? '', 'base64').toString('utf8'),
    token: kc.getCurrentUser()?.token ?? '',
  };
};

/** The product's client, reaching the API server through `proxy`. */
const clientThrough = (proxy: ApiFaultProxy): KubeHttp => {
  const kc = proxy.kubeConfigFor(admin().token);
  return new KubeHttp({ kubeConfig: kc, timeoutMs: 5_000 });
};

describe('the API fault proxy, in front of kube-apiserver', () => {
  let proxy: ApiFaultProxy;
  let http: KubeHttp;

  beforeAll(async () => {
    const { server, ca } = admin();
    proxy = await ApiFaultProxy.start(server, ca);
    http = clientThrough(proxy);
  });
  afterAll(async () => {
    http.close();
    await proxy.close();
  });

  it('passes requests through, TLS verified on both sides', async () => {
    proxy.decide = () => undefined;
    const namespaces = await http.list('list', '/api/v1/namespaces');
    expect(namespaces.length).toBeGreaterThan(0);
  });

  it("answers APF's 429 with Retry-After, which the client reads as TooManyRequests", async () => {
    proxy.decide = () => ({ kind: 'api-429', retryAfterSeconds: 2 });
    const error = await http
      .request('get', 'GET', '/api/v1/namespaces/default')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).statusCode).toBe(429);
    expect((error as KubeApiError).retryAfterSeconds).toBe(2);
    expect(proxy.counts.faults['api-429']).toBe(1);
  });

  it('answers a watch with the 410 Expired event a compacted history gives', async () => {
    proxy.decide = (r) => (r.watch ? { kind: 'watch-410' } : undefined);
    const text = await http.requestText('watch', 'GET', '/api/v1/namespaces', {
      query: { watch: 'true', resourceVersion: '1' },
    });
    const event = JSON.parse(text.trim()) as {
      type: string;
      object: { code: number; reason: string };
    };
    expect(event).toMatchObject({
      type: 'ERROR',
      object: { code: 410, reason: 'Expired' },
    });
  });

  it('answers a watch that asked for protobuf with a 410 the client reads as Gone (its ERROR frame decodes)', async () => {
    proxy.decide = (r) => (r.watch ? { kind: 'watch-410' } : undefined);
    const events = http.watch(
      'watch pods',
      '/api/v1/pods',
      { resourceVersion: '1' },
      undefined,
      POD
    );
    const error = await (async () => {
      for await (const _ of events) {
        // The first event is the error.
      }
    })().catch((e: unknown) => e);
    expect(isApiError(error, ApiErrorReason.Gone)).toBe(true);
  });

  it('cuts a watch mid-stream after the time it is given', async () => {
    proxy.decide = (r) =>
      r.watch ? { kind: 'watch-cut', afterMs: 300 } : undefined;
    const started = Date.now();
    const outcome = await http
      .requestText('watch', 'GET', '/api/v1/namespaces', {
        query: { watch: 'true', timeoutSeconds: 30 },
      })
      .then(
        () => 'ended',
        () => 'cut'
      );
    expect(outcome).toBe('cut');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('makes the cluster unreachable: the connection is reset', async () => {
    proxy.decide = () => ({ kind: 'cluster-unreachable' });
    const error = await http
      .request('get', 'GET', '/api/v1/namespaces/default')
      .catch((e: unknown) => e);
    expect(String(error)).toContain('socket hang up');
  });
});

describe('the AWS proxy, in front of DynamoDB Local', () => {
  let proxy: CountingProxy;
  let table: TestTable;
  let client: DynamoDBClient;

  beforeAll(async () => {
    table = await createTestTable(inject('dynamodbEndpoint'));
    proxy = await CountingProxy.start(inject('dynamodbEndpoint'));
    client = new DynamoDBClient({
      endpoint: proxy.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    client.destroy();
    await proxy.close();
    table.client.destroy();
  });

  const put = (id: string) =>
    client.send(
      new PutItemCommand({
        TableName: table.tableName,
        Item: { [PARTITION_KEY]: { S: id } },
      })
    );

  it('throttles: the SDK sees ThrottlingException and nothing is written', async () => {
    proxy.interfere = () => ({
      kind: 'answer',
      status: 400,
      errorType: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
    });
    const error = await put('throttled').catch((e: unknown) => e);
    expect((error as Error).name).toBe('ThrottlingException');
    proxy.interfere = () => undefined;
    expect(await readItem(table, 'throttled')).toBeUndefined();
  });

  it('loses the answer of a committed write: the SDK sees an error, the item is there', async () => {
    proxy.interfere = ({ action }) =>
      action === 'PutItem' ? { kind: 'lose-response' } : undefined;
    const error = await put('committed').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    proxy.interfere = () => undefined;
    expect(await readItem(table, 'committed')).toBeDefined();
  });
});
