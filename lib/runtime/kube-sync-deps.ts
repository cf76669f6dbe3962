/**
 * Wires the sync core's ports for one cluster reached through `http`: the
 * Kubernetes adapters, with expectations and failed-pod backoff kept in this
 * process (the local run and tests; DynamoDB-backed stores replace them in
 * AWS).
 */
import { KubeClusterReader } from '../adapters/kube/kube-cluster-reader.js';
import { KubeEventRecorder } from '../adapters/kube/kube-event-recorder.js';
import type { KubeHttp } from '../adapters/kube/kube-http.js';
import { KubePodControl } from '../adapters/kube/kube-pod-control.js';
import {
  KubeRevisionControl,
  KubeStatusWriter,
} from '../adapters/kube/kube-revision-control.js';
import { MemoryBackoffStore } from '../adapters/memory/memory-backoff-store.js';
import { MemoryExpectationsStore } from '../adapters/memory/memory-expectations-store.js';
import { systemClock } from '../adapters/memory/system-clock.js';
import type { Logger } from '../ports.js';
import type { SyncDeps } from '../sync/context.js';

/** Returns SyncDeps on the Kubernetes API with in-process state. */
export const kubeSyncDeps = (http: KubeHttp, logger: Logger): SyncDeps => {
  const events = new KubeEventRecorder({ http, logger });
  return {
    reader: new KubeClusterReader({ http }),
    podControl: new KubePodControl({ http, events }),
    revisionControl: new KubeRevisionControl({ http }),
    statusWriter: new KubeStatusWriter({ http }),
    events,
    expectations: new MemoryExpectationsStore({ clock: systemClock }),
    failedPodBackoff: new MemoryBackoffStore(),
    clock: systemClock,
    logger,
  };
};
