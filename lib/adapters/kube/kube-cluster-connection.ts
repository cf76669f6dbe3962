/**
 * Every Kubernetes-facing port of one cluster, over one KubeHttp: what a
 * ClusterConnector hands the worker, the bridge and the CLI.
 */
import type { ClusterConnection, Logger } from '../../ports/index.js';
import {
  type DaemonSetKind,
  NATIVE_DAEMON_SET,
} from '../../reconcile/k8s/daemon-set-kind.js';
import type { KubeHttp } from './client/kube-http.js';
import { KubeCachedClusterReader } from './kube-cached-cluster-reader.js';
import { KubeClusterProbe } from './kube-cluster-probe.js';
import { KubeClusterReader } from './kube-cluster-reader.js';
import { KubeClusterWatch } from './kube-cluster-watch.js';
import { KubeEventRecorder } from './kube-event-recorder.js';
import { KubePodControl } from './kube-pod-control.js';
import { KubeRevisionControl } from './kube-revision-control.js';
import { KubeStatusWriter } from './kube-status-writer.js';

/**
 * Returns the ports of a cluster whose DaemonSets of `kind` the reconciler
 * owns, over `http`; `close` closes `http`. With `cacheReads`, nodes and
 * pods are read from collections kept current by watch (reconcilers).
 */
export const kubeClusterConnection = (
  http: KubeHttp,
  logger: Logger,
  kind: DaemonSetKind = NATIVE_DAEMON_SET,
  { cacheReads = false }: { cacheReads?: boolean } = {}
): ClusterConnection => {
  const events = new KubeEventRecorder({ http, logger });
  const cached = cacheReads
    ? new KubeCachedClusterReader({ http, kind })
    : undefined;
  return {
    watch: new KubeClusterWatch({ http, kind }),
    probe: new KubeClusterProbe({ http }),
    reader: cached ?? new KubeClusterReader({ http, kind }),
    podControl: new KubePodControl({ http, events }),
    revisionControl: new KubeRevisionControl({ http }),
    statusWriter: new KubeStatusWriter({ http }),
    events,
    stats: () => http.stats,
    close: () => {
      cached?.close();
      http.close();
    },
  };
};
