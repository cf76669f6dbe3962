/**
 * KubeHttp.requestMetadata: a write asks for its object's metadata alone,
 * protobuf first, and reads whichever answer the server chose — protobuf
 * PartialObjectMetadata, its JSON, or the whole object — to the same name
 * and resourceVersion; a protobuf answer that does not decode is a typed
 * error, and so is a Status in either encoding. A pod delete asks the same
 * and reads nothing. A real HTTPS server on
 * loopback answers; what kube-apiserver answers is checked in
 * test/integration/kube-adapter.test.ts.
 */

import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { KubePodControl } from '#lib/adapters/kube/kube-pod-control.js';
import { ApiErrorReason, KubeApiError } from '#lib/errors.js';
import { FakeEventRecorder } from '#test/helpers/fakes/fake-event-recorder.js';
import { loopbackAccess } from '#test/helpers/loopback-access.js';
import {
  bytesField,
  concat,
  statusMessage,
  stringField,
  wrapped,
} from '#test/helpers/proto-writer.js';
import { selfSignedKeyPair } from '#test/helpers/self-signed-pem.js';
import { podJson, podProtobuf } from './protobuf/pod-fixture.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** What the server answers next: status, media type, body. */
let next: { status: number; type: string; body: Uint8Array | string };
let accepted: string | undefined;

describe('KubeHttp.requestMetadata', () => {
  const pair = selfSignedKeyPair('127.0.0.1', '127.0.0.1');
  let server: https.Server;
  let http: KubeHttp;

  beforeAll(async () => {
    server = https.createServer(pair, (req, res) => {
      accepted = req.headers.accept;
      req.resume();
      req.on('end', () => {
        res.writeHead(next.status, { 'Content-Type': next.type });
        res.end(next.body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const access = loopbackAccess(port, pair.cert);
    http = new KubeHttp({ kubeConfig: access, timeoutMs: 5_000 });
  });

  afterAll(async () => {
    http.close();
    await new Promise((r) => server.close(r));
  });

  const create = () =>
    http.requestMetadata('create pod', 'POST', '/api/v1/namespaces/x/pods', {
      body: '{}',
    });

  it('asks for protobuf PartialObjectMetadata first, then its JSON, then the whole object', async () => {
    // Prepare
    next = { status: 201, type: 'application/json', body: '{}' };
    // Act
    await create();
    // Assess
    expect(accepted?.split(', ')).toEqual([
      `${PROTOBUF};as=PartialObjectMetadata;g=meta.k8s.io;v=v1`,
      'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
      'application/json',
    ]);
  });

  it('reads the name and resourceVersion of a protobuf PartialObjectMetadata', async () => {
    // Prepare
    const meta = concat(
      stringField(1, 'agent-x7k2p'),
      stringField(3, 'kube-system'),
      stringField(5, 'b1c4'),
      stringField(6, '4711')
    );
    next = {
      status: 201,
      type: PROTOBUF,
      body: wrapped('PartialObjectMetadata', bytesField(1, meta)),
    };
    // Act
    const answer = await create();
    // Assess
    expect(answer).toEqual({
      metadata: {
        name: 'agent-x7k2p',
        namespace: 'kube-system',
        uid: 'b1c4',
        resourceVersion: '4711',
      },
    });
  });

  it('reads the same of a whole pod in protobuf, whose field 1 is its metadata too', async () => {
    // Prepare
    next = { status: 201, type: PROTOBUF, body: wrapped('Pod', podProtobuf) };
    // Act
    const answer = await create();
    // Assess
    expect(answer.metadata).toEqual({
      name: 'agent-x7k2p',
      namespace: 'kube-system',
      uid: 'b1c4',
      resourceVersion: '4711',
    });
  });

  it('reads a JSON answer, metadata only or the whole pod', async () => {
    // Prepare
    next = {
      status: 201,
      type: 'application/json',
      body: JSON.stringify(podJson),
    };
    // Act
    const answer = await create();
    // Assess
    expect(answer.metadata?.name).toBe('agent-x7k2p');
    expect(answer.metadata?.resourceVersion).toBe('4711');
  });

  it('answers an empty body as no metadata', async () => {
    // Prepare
    next = { status: 200, type: 'application/json', body: '' };
    // Act
    const answer = await create();
    // Assess
    expect(answer).toEqual({});
  });

  it('turns a protobuf answer without the k8s magic into a typed error naming the write', async () => {
    // Prepare
    next = { status: 201, type: PROTOBUF, body: Uint8Array.from([1, 2, 3]) };
    // Act
    const failure = await create().catch((e: unknown) => e);
    // Assess
    expect(failure).toBeInstanceOf(KubeApiError);
    expect((failure as KubeApiError).message).toContain('create pod');
  });

  it('reads a Status error in protobuf as the JSON one is read, reason and cause', async () => {
    // Prepare
    const status = statusMessage(
      403,
      'Forbidden',
      'unable to create new content in namespace x because it is being terminated',
      'NamespaceTerminating'
    );
    next = { status: 403, type: PROTOBUF, body: wrapped('Status', status) };
    // Act
    const failure = (await create().catch((e: unknown) => e)) as KubeApiError;
    // Assess
    expect(failure).toBeInstanceOf(KubeApiError);
    expect(failure.reason).toBe(ApiErrorReason.Forbidden);
    expect(failure.causes).toContain('NamespaceTerminating');
    expect(failure.write).toBe(true);
  });

  it('reads a Status error in JSON', async () => {
    // Prepare
    next = {
      status: 404,
      type: 'application/json',
      body: JSON.stringify({ kind: 'Status', reason: 'NotFound', code: 404 }),
    };
    // Act
    const failure = (await create().catch((e: unknown) => e)) as KubeApiError;
    // Assess
    expect(failure.reason).toBe(ApiErrorReason.NotFound);
  });

  it('deletes a pod asking for the small answer, and never reads it: an answer that would not decode leaves the delete done', async () => {
    // Prepare
    next = { status: 200, type: PROTOBUF, body: 'not protobuf' };
    const events = new FakeEventRecorder();
    const pods = new KubePodControl({ http, events });
    // Act
    await pods.deletePod('x', 'p1', { metadata: { name: 'ds' } });
    // Assess
    expect(accepted?.split(', ')[0]).toBe(
      `${PROTOBUF};as=PartialObjectMetadata;g=meta.k8s.io;v=v1`
    );
    expect(events.events).toEqual([
      {
        type: 'Normal',
        reason: 'SuccessfulDelete',
        message: 'Deleted pod: p1',
      },
    ]);
  });
});
