/**
 * kube-controller-manager running only its own DaemonSet controller: the
 * oracle the sync core is compared with, and the contender in benchmarks.
 */
import path from 'node:path';
import {
  type Component,
  freePort,
  startProcess,
} from '../../lib/local-cluster/processes.js';

/** Starts the upstream DaemonSet controller against `kubeconfigPath`. */
export const startUpstreamDaemonSetController = async ({
  binDir,
  kubeconfigPath,
  logDir,
  qps = 20,
  burst = 30,
}: {
  binDir: string;
  kubeconfigPath: string;
  logDir: string;
  qps?: number;
  burst?: number;
}): Promise<Component> =>
  startProcess(
    'kcm-daemonset',
    path.join(binDir, 'kube-controller-manager'),
    [
      `--kubeconfig=${kubeconfigPath}`,
      '--controllers=daemonset-controller',
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${await freePort()}`,
      `--kube-api-qps=${qps}`,
      `--kube-api-burst=${burst}`,
      '--v=2',
    ],
    logDir
  );
