/**
 * The command lines of the control plane's components: which flags each of
 * etcd, kube-apiserver, kube-scheduler, the support controllers and KWOK
 * runs with. ControlPlane (control-plane.ts) starts them in that order.
 */
import path from 'node:path';
import { repositoryFile } from './repository-file.js';
import { UNMANAGED_LABEL } from './simulated-nodes.js';

const STAGES = repositoryFile(
  import.meta.url,
  'lib/local-cluster/kwok-stages.yaml'
);

/** Returns the etcd client URL of `clientPort`. */
export const etcdClientUrl = (clientPort: number): string =>
  `http://127.0.0.1:${clientPort}`;

/** A single-member etcd in `workDir`, without fsync. */
export const etcdFlags = (
  workDir: string,
  clientPort: number,
  peerPort: number
): string[] => {
  const client = etcdClientUrl(clientPort);
  const peer = `http://127.0.0.1:${peerPort}`;
  return [
    '--name=dsr',
    `--data-dir=${path.join(workDir, 'etcd')}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=dsr=${peer}`,
    '--unsafe-no-fsync',
    '--quota-backend-bytes=8589934592',
  ];
};

/** kube-apiserver on 127.0.0.1 with token auth, RBAC and service accounts. */
export const apiServerFlags = (o: {
  workDir: string;
  etcdPort: number;
  etcdPrefix: string;
  apiPort: number;
  certDir: string;
  saKey: string;
}): string[] => [
  `--etcd-servers=http://127.0.0.1:${o.etcdPort}`,
  `--etcd-prefix=${o.etcdPrefix}`,
  '--bind-address=127.0.0.1',
  '--advertise-address=127.0.0.1',
  `--secure-port=${o.apiPort}`,
  '--endpoint-reconciler-type=none',
  `--cert-dir=${o.certDir}`,
  `--token-auth-file=${path.join(o.workDir, 'tokens.csv')}`,
  '--authorization-mode=RBAC',
  '--service-account-issuer=https://kubernetes.default.svc',
  `--service-account-key-file=${o.saKey}`,
  `--service-account-signing-key-file=${o.saKey}`,
  '--service-cluster-ip-range=10.96.0.0/16',
  '--disable-admission-plugins=ServiceAccount,TaintNodesByCondition',
  '--allow-privileged=true',
  '--max-requests-inflight=2000',
  '--max-mutating-requests-inflight=1000',
];

/** kube-scheduler from its config file. */
export const schedulerFlags = (config: string, port: number): string[] => [
  `--config=${config}`,
  '--bind-address=127.0.0.1',
  `--secure-port=${port}`,
];

/**
 * kube-controller-manager with the support controllers: garbage
 * collector, namespace, pod GC and ClusterRole aggregation, and (as on a
 * managed cluster) the DaemonSet controller when `daemonSets`.
 */
export const supportControllerFlags = (
  kubeconfig: string,
  port: number,
  daemonSets = false
): string[] => [
  `--kubeconfig=${kubeconfig}`,
  `--controllers=garbage-collector-controller,namespace-controller,pod-garbage-collector-controller,clusterrole-aggregation-controller${daemonSets ? ',daemonset-controller' : ''}`,
  '--leader-elect=false',
  '--bind-address=127.0.0.1',
  `--secure-port=${port}`,
  '--kube-api-qps=5000',
  '--kube-api-burst=10000',
];

/** KWOK simulating every node but those labelled UNMANAGED_LABEL. */
export const kwokFlags = (kubeconfig: string): string[] => [
  `--kubeconfig=${kubeconfig}`,
  `--config=${STAGES}`,
  // Nodes labelled UNMANAGED_LABEL keep the status a test gives them.
  '--manage-all-nodes=false',
  '--manage-nodes-with-annotation-selector=',
  `--manage-nodes-with-label-selector=!${UNMANAGED_LABEL}`,
  '--manage-single-node=',
  '--node-lease-duration-seconds=0',
  '--cidr=10.0.0.0/16',
];
