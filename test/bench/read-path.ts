/**
 * The two read paths measurement 1 compares, and how one sync over either is
 * measured: the product's (SyncSnapshotReader over KubeClusterReader, as
 * lib/worker/reconciler.ts builds it) and the naive one
 * (NaiveClusterReader: every read live, pods listed namespace-wide).
 */

import { performance } from 'node:perf_hooks';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { KubeCachedClusterReader } from '#lib/adapters/kube/kube-cached-cluster-reader.js';
import { kubeClusterConnection } from '#lib/adapters/kube/kube-cluster-connection.js';
import { KubeClusterReader } from '#lib/adapters/kube/kube-cluster-reader.js';
import { MemoryBackoffStore } from '#lib/adapters/memory/memory-backoff-store.js';
import { MemoryExpectationsStore } from '#lib/adapters/memory/memory-expectations-store.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import type { Logger } from '#lib/ports/index.js';
import { NATIVE_DAEMON_SET } from '#lib/reconcile/k8s/daemon-set-kind.js';
import type { SyncDeps } from '#lib/sync/context.js';
import { syncDaemonSet } from '#lib/sync/sync-daemon-set.js';
import { syncPortsOf } from '#lib/worker/cluster-sessions.js';
import { SyncSnapshotReader } from '#lib/worker/sync-snapshot-reader.js';
import { NaiveClusterReader } from './naive-cluster-reader.js';

/**
 * Which read path a sync uses: the product's in a warm container (`cached`:
 * nodes and pods kept current by watch across syncs), the product's without
 * that cache (`snapshot`: one list each per sync), or the naive one.
 */
export type ReaderKind = 'cached' | 'snapshot' | 'naive';

const warmReaders = new Map<KubeHttp, KubeCachedClusterReader>();

/** The cached reader of a warm container: one per connection, kept. */
const warmReader = (http: KubeHttp): KubeCachedClusterReader => {
  let reader = warmReaders.get(http);
  if (reader === undefined) {
    reader = new KubeCachedClusterReader({ http, kind: NATIVE_DAEMON_SET });
    warmReaders.set(http, reader);
  }
  return reader;
};

/** How many objects the warm readers keep. */
export const warmReaderObjects = (): number =>
  [...warmReaders.values()].reduce((n, r) => n + r.size, 0);

/** Stops the watches of every warm reader (they keep the process alive). */
export const closeWarmReaders = (): void => {
  for (const reader of warmReaders.values()) reader.close();
  warmReaders.clear();
};

/** What one measured call cost. */
export interface Sample {
  requests: number;
  bytesRead: number;
  bytesWritten: number;
  /** Wall-clock time. */
  ms: number;
  /** CPU time of the whole process (all its threads, GC included). */
  cpuMs: number;
}

/** Returns a Logger that collects warnings and errors into `problems`. */
export const collectingLogger = (problems: string[]): Logger => ({
  debug: () => undefined,
  info: () => undefined,
  warn: (m, f) => problems.push(`warn: ${m} ${JSON.stringify(f ?? {})}`),
  error: (m, f) => problems.push(`error: ${m} ${JSON.stringify(f ?? {})}`),
});

/**
 * Returns the ports of one sync as lib/worker/reconciler.ts builds them,
 * with fresh (satisfied) in-memory expectations, so every sync runs the full
 * manage → rolling update → history → status path.
 */
export const syncDeps = (
  http: KubeHttp,
  kind: ReaderKind,
  logger: Logger
): SyncDeps => {
  const ports = syncPortsOf(kubeClusterConnection(http, logger), {
    expectations: new MemoryExpectationsStore({ clock: systemClock }),
    failedPodBackoff: new MemoryBackoffStore(),
    clock: systemClock,
  });
  const reader =
    kind === 'naive'
      ? new NaiveClusterReader({ http })
      : new SyncSnapshotReader(
          kind === 'cached' ? warmReader(http) : ports.reader
        );
  return { ...ports, reader, logger };
};

/** Returns what `act` cost on `http`. */
export const measure = async (
  http: KubeHttp,
  act: () => Promise<unknown>
): Promise<Sample> => {
  const before = { ...http.stats };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await act();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return {
    requests: http.stats.requests - before.requests,
    bytesRead: http.stats.bytesRead - before.bytesRead,
    bytesWritten: http.stats.bytesWritten - before.bytesWritten,
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
};

/** Returns what one sync of `key` over the given read path cost. */
export const measureSync = (
  http: KubeHttp,
  key: string,
  kind: ReaderKind,
  logger: Logger
): Promise<Sample> =>
  measure(http, () => syncDaemonSet(key, syncDeps(http, kind, logger)));

/** Returns what each single read a sync makes costs, once each. */
export const measureEachRead = async (
  http: KubeHttp,
  namespace: string,
  name: string
): Promise<[string, Sample][]> => {
  const kube = new KubeClusterReader({ http, kind: NATIVE_DAEMON_SET });
  const naive = new NaiveClusterReader({ http });
  const ds = await kube.getDaemonSet(namespace, name);
  if (ds === undefined) throw new Error(`${namespace}/${name} not found`);
  const reads: [string, () => Promise<unknown>][] = [
    ['GET DaemonSet', () => kube.getDaemonSet(namespace, name)],
    ['list nodes', () => kube.listNodes()],
    ['list pods by selector', () => kube.listPods(namespace, ds)],
    ['list pods of namespace', () => naive.listPods(namespace)],
    ['list ControllerRevisions', () => kube.listControllerRevisions(namespace)],
  ];
  const out: [string, Sample][] = [];
  for (const [what, read] of reads) out.push([what, await measure(http, read)]);
  return out;
};
