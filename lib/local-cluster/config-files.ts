/** Configuration files the test bed writes for its components. */

/** Returns a kubeconfig for a token user, verifying the server with `ca`. */
export const kubeconfigYaml = (server: string, ca: Buffer, token: string) =>
  [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: dsr-local',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${ca.toString('base64')}`,
    'users:',
    '- name: dsr-admin',
    '  user:',
    `    token: ${token}`,
    'contexts:',
    '- name: dsr-local',
    '  context: {cluster: dsr-local, user: dsr-admin}',
    'current-context: dsr-local',
    '',
  ].join('\n');

/** Returns kube-scheduler's configuration. */
export const schedulerConfigYaml = (kubeconfigPath: string) =>
  [
    'apiVersion: kubescheduler.config.k8s.io/v1',
    'kind: KubeSchedulerConfiguration',
    'clientConnection:',
    `  kubeconfig: ${kubeconfigPath}`,
    // Never the bottleneck: one bind per pod at the default 50 QPS would
    // throttle every DaemonSet measurement.
    '  qps: 5000',
    '  burst: 10000',
    'leaderElection:',
    '  leaderElect: false',
    '',
  ].join('\n');
