/**
 * client-node KubeConfigs for local runs, the CLI and tests: a
 * `kubeconfig`-auth record's file (the operator's own, so its exec plugins
 * are allowed). The deployed functions never import this module (see
 * cluster-access.ts).
 */
import { KubeConfig } from '@kubernetes/client-node';
import { ReconcilerError } from '../../errors.js';
import type { ClusterAuth, ClusterRecord } from '../../ports/index.js';

/**
 * Returns the KubeConfig of a `kubeconfig`-auth cluster (local runs and
 * tests: the operator's own file, so its exec plugins are allowed), set to
 * `auth.context` when given; refuses plain http and insecure-skip-tls-verify.
 */
export const kubeConfigFromFile = (
  auth: Extract<ClusterAuth, { type: 'kubeconfig' }>
): KubeConfig => {
  const kc = new KubeConfig();
  kc.loadFromFile(auth.path);
  if (auth.context !== undefined) {
    if (kc.getContextObject(auth.context) === null) {
      throw new ReconcilerError(
        `kubeconfig ${auth.path} has no context ${auth.context}`
      );
    }
    kc.setCurrentContext(auth.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server.startsWith('https://') || cluster.skipTLSVerify) {
    throw new ReconcilerError(
      `kubeconfig ${auth.path}: the current cluster must use https with TLS verification`
    );
  }
  return kc;
};

/**
 * Returns the record's API server URL: the endpoint, or for `kubeconfig`
 * auth the file's current server; '' when the file cannot be read.
 */
export const serverOfRecord = (record: ClusterRecord): string => {
  if (record.auth.type !== 'kubeconfig') return record.endpoint;
  try {
    return kubeConfigFromFile(record.auth).getCurrentCluster()?.server ?? '';
  } catch {
    return '';
  }
};
