/** kube-errors: how an API answer becomes a typed error, writes told apart. */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  apiErrorFromResponse,
  apiErrorFromStream,
} from '#lib/adapters/kube/client/kube-errors.js';
import { ApiErrorReason, mustRelist } from '#lib/errors.js';
import { statusMessage, wrapped } from '#test/helpers/proto-writer.js';

describe('apiErrorFromResponse', () => {
  it('marks the answer to a write as a write, a GET as a read', () => {
    const body = JSON.stringify({
      kind: 'Status',
      reason: 'InternalError',
      message: 'failed calling webhook',
    });
    const write = apiErrorFromResponse(
      'create pod',
      500,
      body,
      undefined,
      'POST'
    );
    const read = apiErrorFromResponse('list nodes', 500, body, undefined);
    expect([write.reason, write.write]).toEqual([
      ApiErrorReason.ServerError,
      true,
    ]);
    expect([read.reason, read.write]).toEqual([
      ApiErrorReason.ServerError,
      false,
    ]);
  });

  it('keeps the causes, such as ResourceVersionTooLarge on a watch', () => {
    const body = JSON.stringify({
      kind: 'Status',
      reason: 'Timeout',
      message: 'Too large resource version: 900, current: 12',
      details: {
        causes: [{ reason: 'ResourceVersionTooLarge' }],
        retryAfterSeconds: 1,
      },
    });
    const e = apiErrorFromResponse('watch pods', 504, body, undefined);
    expect(e.causes).toEqual(['ResourceVersionTooLarge']);
    expect(e.retryAfterSeconds).toBe(1);
  });
});

/** A streamed answer: its status, content type and body. */
const answer = (status: number, contentType: string, body: Uint8Array) =>
  Object.assign(Readable.from([Buffer.from(body)]), {
    statusCode: status,
    headers: { 'content-type': contentType },
  }) as unknown as IncomingMessage;

describe('apiErrorFromStream', () => {
  it('reads a Status the server sent in protobuf, causes included', async () => {
    const status = statusMessage(
      504,
      'Timeout',
      'Too large resource version',
      'ResourceVersionTooLarge'
    );
    const res = answer(
      504,
      'application/vnd.kubernetes.protobuf',
      wrapped('Status', status)
    );
    const e = await apiErrorFromStream('watch pods', res);
    expect([e.statusCode, e.causes]).toEqual([
      504,
      ['ResourceVersionTooLarge'],
    ]);
    expect(e.message).toBe(
      'watch pods: 504 Timeout Too large resource version'
    );
    expect(mustRelist(e)).toBe(true);
  });

  it('reads a JSON Status as before', async () => {
    const body = JSON.stringify({
      kind: 'Status',
      reason: 'Expired',
      code: 410,
    });
    const res = answer(410, 'application/json', Buffer.from(body));
    const e = await apiErrorFromStream('watch pods', res);
    expect(e.reason).toBe(ApiErrorReason.Gone);
  });

  it('still answers by the status code when a protobuf body does not parse', async () => {
    const res = answer(
      429,
      'application/vnd.kubernetes.protobuf',
      Uint8Array.from([1, 2, 3])
    );
    const e = await apiErrorFromStream('watch pods', res);
    expect([e.statusCode, e.reason]).toEqual([
      429,
      ApiErrorReason.TooManyRequests,
    ]);
  });
});
