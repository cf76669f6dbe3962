/**
 * The deployed functions' wiring refuses `kubeconfig` records: in Lambda a
 * kubeconfig file could run exec plugins or read token files (F15), and no
 * such file exists there anyway. Tests and local runs opt in explicitly.
 */
import { describe, expect, it } from 'vitest';
import { ClusterCredentialError } from '#lib/adapters/kube/cluster-credential.js';
import type { Config } from '#lib/config.js';
import type { ClusterRecord } from '#lib/ports/index.js';
import { createAwsWiring } from '#lib/wiring/aws.js';
import { LocalMetrics } from '#lib/wiring/local-runtime.js';
import { FakeLogger } from '../../../helpers/fakes/fake-logger.js';

const config: Config = {
  tableName: 'state',
  workQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/work.fifo',
  delayQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/delay',
  logLevel: 'WARN',
  bridgeWatchSeconds: 840,
  bridgeEconomySeconds: 10,
  bridgeResyncSeconds: 3_600,
  reconcilePerCluster: 5,
  bridgeClustersPerTurn: 10,
  bridgeNodesPerTurn: 5_000,
  bridgeEconomyConcurrency: 50,
  perClusterMetrics: false,
};

const kubeconfigRecord: ClusterRecord = {
  id: 'laptop',
  endpoint: '',
  caData: '',
  auth: { type: 'kubeconfig', path: '/root/.kube/config' },
  ownership: 'apps/v1',
  bridgeMode: 'watch',
};

describe('createAwsWiring', () => {
  it('refuses a kubeconfig record before touching the file (F15)', async () => {
    // Prepare
    const wiring = createAwsWiring(
      config,
      new FakeLogger(),
      new LocalMetrics(),
      {
        region: 'eu-west-1',
      }
    );
    // Act
    const error = await wiring.bridge
      .connect(kubeconfigRecord)
      .catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ClusterCredentialError);
    expect((error as Error).message).toContain(
      'cluster laptop is registered with a kubeconfig file, which only local runs may use'
    );
  });
});
