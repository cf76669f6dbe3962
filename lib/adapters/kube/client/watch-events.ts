/**
 * The events of a watch answer: one JSON object a line, split across
 * chunks anyhow (a multi-byte character too: the decoder keeps its first
 * bytes for the next chunk); an in-stream ERROR event throws KubeApiError
 * (410 ⇒ Gone), a line that is not JSON UnreadableEventError.
 */
import { StringDecoder } from 'node:string_decoder';
import { UnreadableEventError } from '../../../errors.js';
import type { ConnectionStats, WatchEvent } from '../../../ports/index.js';
import { apiErrorFromResponse } from './kube-errors.js';

/** Yields each event of `body`, counting its bytes into `stats`. */
export async function* watchEvents<T>(
  what: string,
  body: AsyncIterable<unknown>,
  stats: ConnectionStats
): AsyncGenerator<WatchEvent<T>> {
  const utf8 = new StringDecoder('utf8');
  let buffered = '';
  for await (const chunk of body) {
    stats.bytesRead += (chunk as Buffer).length;
    buffered += utf8.write(chunk as Buffer);
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
      if (line === '') continue;
      const event = parseEvent<T>(what, line);
      if (event.type === 'ERROR') {
        const text = JSON.stringify(event.object);
        const code = (event.object as { code?: number }).code ?? 500;
        throw apiErrorFromResponse(what, code, text, undefined);
      }
      yield event;
    }
  }
}

const parseEvent = <T>(what: string, line: string): WatchEvent<T> => {
  try {
    return JSON.parse(line) as WatchEvent<T>;
  } catch (cause) {
    throw new UnreadableEventError(`${what}: a watch event that is not JSON`, {
      cause,
    });
  }
};
