/**
 * protobufWatchEvents: length-prefixed frames split anyhow across chunks,
 * bookmarks, and an ERROR event's Status thrown as the JSON stream throws it.
 */
import { describe, expect, it } from 'vitest';
import { POD } from '#lib/adapters/kube/client/protobuf/pod-schema.js';
import { MalformedProtobufError } from '#lib/adapters/kube/client/protobuf/proto-reader.js';
import {
  MAX_FRAME_BYTES,
  protobufWatchEvents,
} from '#lib/adapters/kube/client/protobuf/protobuf-watch-events.js';
import {
  ApiErrorReason,
  isApiError,
  mustRelist,
  UnreadableEventError,
} from '#lib/errors.js';
import type { ConnectionStats, WatchEvent } from '#lib/ports/index.js';
import {
  bytesField,
  concat,
  mapEntry,
  statusMessage,
  stringField,
  watchFrame,
  wrapped,
} from '#test/helpers/proto-writer.js';
import { podKept, podProtobuf } from './pod-fixture.js';

const stats = (): ConnectionStats => ({
  requests: 0,
  bytesRead: 0,
  bytesWritten: 0,
});

async function* chunked(bytes: Uint8Array, size: number) {
  for (let i = 0; i < bytes.length; i += size) {
    yield Buffer.from(bytes.subarray(i, i + size));
  }
}

const readAll = async (bytes: Uint8Array, size: number, s = stats()) => {
  const events: WatchEvent[] = [];
  for await (const e of protobufWatchEvents(
    'watch pods',
    chunked(bytes, size),
    s,
    POD
  )) {
    events.push(e as WatchEvent);
  }
  return events;
};

const bookmark = wrapped(
  'Pod',
  concat(
    bytesField(
      1,
      stringField(6, '4800'),
      mapEntry(12, 'k8s.io/initial-events-end', 'true')
    ),
    bytesField(2),
    bytesField(3)
  )
);

const status = (code: number, reason: string, cause?: string) =>
  wrapped('Status', statusMessage(code, reason, `${reason} happened`, cause));

describe('protobufWatchEvents', () => {
  const stream = concat(
    watchFrame('ADDED', wrapped('Pod', podProtobuf)),
    watchFrame('MODIFIED', wrapped('Pod', podProtobuf)),
    watchFrame('BOOKMARK', bookmark)
  );

  it.each([1, 3, 64, 100_000])(
    'yields the same events whatever the chunk size (%d bytes)',
    async (size) => {
      // Prepare
      const s = stats();
      // Act
      const events = await readAll(stream, size, s);
      // Assess
      expect(events.map((e) => e.type)).toEqual([
        'ADDED',
        'MODIFIED',
        'BOOKMARK',
      ]);
      expect(events[0]?.object).toEqual(podKept);
      expect(events[2]?.object).toEqual({
        metadata: {
          resourceVersion: '4800',
          annotations: { 'k8s.io/initial-events-end': 'true' },
        },
        spec: {},
        status: {},
      });
      expect(s.bytesRead).toBe(stream.length);
    }
  );

  it('throws an ERROR event as the API error it is: 410 means relist', async () => {
    const gone = concat(
      watchFrame('ADDED', wrapped('Pod', podProtobuf)),
      watchFrame('ERROR', status(410, 'Expired'))
    );
    const error = await readAll(gone, 7).catch((e: unknown) => e);
    expect(isApiError(error, ApiErrorReason.Gone)).toBe(true);
    expect(mustRelist(error)).toBe(true);
    expect(String(error)).toMatch(/410 Expired Expired happened/);
  });

  it("keeps a Status's causes: a too-large resourceVersion means relist", async () => {
    const tooLarge = watchFrame(
      'ERROR',
      status(504, 'Timeout', 'ResourceVersionTooLarge')
    );
    const error = await readAll(tooLarge, 5).catch((e: unknown) => e);
    expect(mustRelist(error)).toBe(true);
  });

  it('refuses an object without the k8s magic as an unreadable event', async () => {
    const bad = watchFrame('ADDED', podProtobuf);
    const error = await readAll(bad, 16).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableEventError);
    expect((error as Error).cause).toBeInstanceOf(MalformedProtobufError);
  });

  it('refuses a frame over the limit from its header, before its bytes', async () => {
    // Prepare: a header announcing a frame one byte over the limit.
    const header = Buffer.alloc(4);
    header.writeUInt32BE(MAX_FRAME_BYTES + 1, 0);
    // Act
    const error = await readAll(header, 1).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(UnreadableEventError);
    expect(MAX_FRAME_BYTES).toBeLessThanOrEqual(4 * 1024 * 1024);
  });

  it('decodes a large frame sent in many small chunks', async () => {
    // Prepare: a pod with a 256-KiB annotation, in 1-KiB chunks.
    const big = 'x'.repeat(256 * 1024);
    const pod = bytesField(1, stringField(1, 'big'), mapEntry(12, 'a', big));
    const frames = concat(
      watchFrame('ADDED', wrapped('Pod', pod)),
      watchFrame('ADDED', wrapped('Pod', podProtobuf))
    );
    // Act
    const events = await readAll(frames, 1024);
    // Assess
    expect(events).toHaveLength(2);
    expect(events[0]?.object.metadata?.annotations?.a).toHaveLength(big.length);
    expect(events[1]?.object).toEqual(podKept);
  });
});
