/**
 * Counts a DaemonSet controller's writes from the API server's own
 * `/metrics` (`apiserver_request_total`), so both contenders are counted the
 * same way, whatever their clients report. Counted: writes (POST, PUT,
 * PATCH, DELETE) of pods (not their status, which KWOK writes, nor their
 * binding, which the scheduler posts), core Events, DaemonSet status and
 * ControllerRevisions — what a DaemonSet controller writes. The bench's own
 * writes (nodes, the DaemonSet, clean-up) fall outside the window.
 */
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';

const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether a series counts as a DaemonSet controller's write. */
const isControllerWrite = (labels: Record<string, string>): boolean => {
  if (!WRITE_VERBS.has(labels.verb ?? '')) return false;
  const sub = labels.subresource ?? '';
  switch (labels.resource) {
    case 'pods':
      return sub === '';
    case 'events':
      return (labels.group ?? '') === '';
    case 'daemonsets':
      return sub === 'status';
    case 'controllerrevisions':
      return true;
    default:
      return false;
  }
};

/**
 * Returns the controller writes the API server has counted so far, by
 * `VERB resource[/subresource]` (e.g. `POST pods`, `PUT daemonsets/status`).
 */
export const controllerWritesByKind = async (
  admin: KubeHttp
): Promise<Map<string, number>> => {
  const text = await admin.requestText('read metrics', 'GET', '/metrics');
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const end = line.lastIndexOf('}');
    const labels: Record<string, string> = {};
    for (const [, k, v] of line
      .slice('apiserver_request_total{'.length, end)
      .matchAll(/(\w+)="([^"]*)"/g)) {
      labels[k as string] = v as string;
    }
    if (!isControllerWrite(labels)) continue;
    const kind = `${labels.verb} ${labels.resource}${labels.subresource ? `/${labels.subresource}` : ''}`;
    counts.set(
      kind,
      (counts.get(kind) ?? 0) + Number(line.slice(end + 1).trim())
    );
  }
  return counts;
};

/** Returns the writes of `after` less those of `before`, by kind. */
export const writesSince = (
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>
): Record<string, number> =>
  Object.fromEntries(
    [...after]
      .map(([k, n]): [string, number] => [k, n - (before.get(k) ?? 0)])
      .filter(([, n]) => n > 0)
  );

/** Returns the total of writes by kind. */
export const totalWrites = (byKind: Record<string, number>): number =>
  Object.values(byKind).reduce((a, n) => a + n, 0);

/**
 * Runs `act`, then `settle` (time for the writes that follow it), and
 * returns what `act` returned with the controller writes in between.
 */
export const countingWrites = async <T>(
  admin: KubeHttp,
  act: () => Promise<T>,
  settle: () => Promise<unknown>
): Promise<T & { apiWrites: number; writes: Record<string, number> }> => {
  const before = await controllerWritesByKind(admin);
  const result = await act();
  await settle();
  const writes = writesSince(before, await controllerWritesByKind(admin));
  return { ...result, apiWrites: totalWrites(writes), writes };
};
