/**
 * watchEvents: JSON lines split anyhow across chunks, a character's bytes
 * included, and a line that is not JSON thrown as an unreadable event.
 */
import { describe, expect, it } from 'vitest';
import { watchEvents } from '#lib/adapters/kube/client/watch-events.js';
import { UnreadableEventError } from '#lib/errors.js';
import type { WatchEvent } from '#lib/ports/index.js';

async function* chunked(bytes: Buffer, size: number) {
  for (let i = 0; i < bytes.length; i += size) {
    yield bytes.subarray(i, i + size);
  }
}

const readAll = async (bytes: Buffer, size: number) => {
  const stats = { requests: 0, bytesRead: 0, bytesWritten: 0 };
  const events: WatchEvent[] = [];
  for await (const e of watchEvents('watch ds', chunked(bytes, size), stats)) {
    events.push(e as WatchEvent);
  }
  return events;
};

describe('watchEvents', () => {
  it.each([1, 2, 3, 5])(
    'keeps a multi-byte character split across chunks (%d bytes)',
    async (size) => {
      // Prepare: 'ü' and '🚀' are 2 and 4 bytes of UTF-8.
      const name = 'grüße-🚀';
      const line = `${JSON.stringify({ type: 'ADDED', object: { metadata: { name } } })}\n`;
      // Act
      const events = await readAll(Buffer.from(line + line), size);
      // Assess
      expect(events.map((e) => e.object.metadata?.name)).toEqual([name, name]);
    }
  );

  it('throws a line that is not JSON as an unreadable event', async () => {
    // Prepare
    const bytes = Buffer.from('{"type":"ADDED","object":{}}\n{"type":\n');
    // Act
    const error = await readAll(bytes, 8).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(UnreadableEventError);
  });
});
