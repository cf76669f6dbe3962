/**
 * Wires the sync core's ports for one cluster reached through `http`, with
 * expectations and failed-pod backoff kept in this process (sync-loop tests,
 * which drive `syncDaemonSet` without a queue).
 */

import type { KubeHttp } from '../../lib/adapters/kube/client/kube-http.js';
import { kubeClusterConnection } from '../../lib/adapters/kube/kube-cluster-connection.js';
import { MemoryBackoffStore } from '../../lib/adapters/memory/memory-backoff-store.js';
import { MemoryExpectationsStore } from '../../lib/adapters/memory/memory-expectations-store.js';
import { systemClock } from '../../lib/adapters/system-clock.js';
import type { Logger } from '../../lib/ports/index.js';
import type { SyncDeps } from '../../lib/sync/context.js';
import { syncPortsOf } from '../../lib/worker/cluster-sessions.js';

/** Returns SyncDeps on the Kubernetes API with in-process state. */
export const kubeSyncDeps = (http: KubeHttp, logger: Logger): SyncDeps => ({
  ...syncPortsOf(kubeClusterConnection(http, logger), {
    expectations: new MemoryExpectationsStore({ clock: systemClock }),
    failedPodBackoff: new MemoryBackoffStore(),
    clock: systemClock,
  }),
  logger,
});
