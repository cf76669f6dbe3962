/**
 * The events of a watch answer: one JSON object a line, split across
 * chunks anyhow; an in-stream ERROR event throws KubeApiError (410 ⇒ Gone).
 */
import type { ConnectionStats, WatchEvent } from '../../ports/index.js';
import { apiErrorFromResponse } from './kube-errors.js';

/** Yields each event of `body`, counting its bytes into `stats`. */
export async function* watchEvents<T>(
  what: string,
  body: AsyncIterable<unknown>,
  stats: ConnectionStats
): AsyncGenerator<WatchEvent<T>> {
  let buffered = '';
  for await (const chunk of body) {
    stats.bytesRead += (chunk as Buffer).length;
    buffered += (chunk as Buffer).toString('utf8');
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
      if (line === '') continue;
      const event = JSON.parse(line) as WatchEvent<T>;
      if (event.type === 'ERROR') {
        const text = JSON.stringify(event.object);
        const code = (event.object as { code?: number }).code ?? 500;
        throw apiErrorFromResponse(what, code, text, undefined);
      }
      yield event;
    }
  }
}
