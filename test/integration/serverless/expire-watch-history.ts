/**
 * Makes the test bed's API server answer a watch from an old
 * resourceVersion with 410 Gone, as a long-lived cluster does.
 *
 * A young test bed never does: kube-apiserver serves watches from its watch
 * cache, which was filled from etcd revision 1 and keeps every event until
 * its ring buffer evicts one, and compacting etcd does not shorten that
 * history. The ring (k8s.io/apiserver storage/cacher, 100 events at first)
 * grows while its oldest event is younger than 75 s
 * (`DefaultEventFreshDuration`) and evicts the oldest once it is older. So:
 * wait until the resource's oldest event is older than that, then write
 * events until one is evicted — from then on resourceVersion 1 is too old.
 */
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { abortableSleep } from '#lib/bridge/abortable-sleep.js';
import { ApiErrorReason, isApiError } from '#lib/errors.js';

/** The watch cache's event window, plus a margin. */
const FRESH_MS = 80_000;
/** Events written between two probes. */
const ROUND = 50;

/** Returns whether a watch of `path` from resourceVersion 1 gets 410. */
export const isHistoryExpired = async (
  admin: KubeHttp,
  path: string
): Promise<boolean> => {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 2_000);
  try {
    // The first event (or the end of a quiet stream) settles it.
    for await (const _ of admin.watch(
      'probe watch history',
      path,
      { resourceVersion: '1', timeoutSeconds: 1 },
      abort.signal
    )) {
      break;
    }
    return false;
  } catch (e) {
    if (isApiError(e, ApiErrorReason.Gone)) return true;
    throw e;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
};

/**
 * Writes events with `churn(i)` until watches of `path` from resourceVersion
 * 1 get 410, once the resource's oldest event (at the latest the one written
 * at `oldestEventAtMs`) has left the cache's window; returns how many
 * events it wrote.
 */
export const expireWatchHistory = async (
  admin: KubeHttp,
  path: string,
  oldestEventAtMs: number,
  churn: (i: number) => Promise<unknown>,
  timeoutMs = 240_000
): Promise<number> => {
  const started = systemClock.now();
  let written = 0;
  if (await isHistoryExpired(admin, path)) return written;
  // Events written earlier would only make the ring grow.
  await abortableSleep(Math.max(0, oldestEventAtMs + FRESH_MS - started));
  while (!(await isHistoryExpired(admin, path))) {
    if (systemClock.now() - started > timeoutMs) {
      throw new Error(`${path}: history not expired after ${written} events`);
    }
    await Promise.all(
      Array.from({ length: ROUND }, (_, i) => churn(written + i))
    );
    written += ROUND;
  }
  return written;
};
