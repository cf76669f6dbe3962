/** kube-errors: how an API answer becomes a typed error, writes told apart. */
import { describe, expect, it } from 'vitest';
import { apiErrorFromResponse } from '#lib/adapters/kube/kube-errors.js';
import { ApiErrorReason } from '#lib/errors.js';

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
