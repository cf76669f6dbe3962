/**
 * The dispatcher's handler hands each tick's checkpoint ages to the metrics
 * sink, so a cluster whose bridge stopped checkpointing shows on a graph.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it } from 'vitest';
import { MemoryBridgeLeaseStore } from '#lib/adapters/memory/memory-bridge-lease-store.js';
import { createBridgeDispatchHandler } from '#lib/handlers/bridge-dispatch-handler.js';
import type { CheckpointAge, ClusterRecord } from '#lib/ports/index.js';
import { FakeClock } from '../../../helpers/fakes/fake-clock.js';
import { FakeLogger } from '../../../helpers/fakes/fake-logger.js';
import { MemoryClusterRegistry } from '../../../helpers/fakes/memory-cluster-registry.js';
import { lambdaContext } from '../../../helpers/lambda-context.js';

const record = (id: string): ClusterRecord => ({
  id,
  endpoint: '',
  caData: '',
  auth: { type: 'kubeconfig', path: '/dev/null' },
  ownership: 'apps/v1',
  bridgeMode: 'economy',
});

describe('createBridgeDispatchHandler', () => {
  it('reports every checkpointed cluster’s checkpoint age to the sink', async () => {
    // Prepare
    const clock = new FakeClock();
    const leases = new MemoryBridgeLeaseStore({ clock });
    await leases.acquire('a', 'run-1', 60_000);
    await leases.checkpoint('a', 'run-1', {}, 60_000);
    await leases.release('a', 'run-1');
    clock.step(90_000);
    const reported: CheckpointAge[][] = [];
    const handler = createBridgeDispatchHandler({
      dispatch: {
        registry: new MemoryClusterRegistry([record('a'), record('b')]),
        leases,
        launcher: { launch: async () => undefined },
        clock,
        logger: new FakeLogger(),
      },
      config: {
        bridgeWatchSeconds: 840,
        bridgeEconomySeconds: 20,
        bridgeClustersPerTurn: 20,
        bridgeNodesPerTurn: 5_000,
        bridgeEconomyConcurrency: 50,
      },
      logger: new Logger({ logLevel: 'SILENT' }),
      sink: { recordCheckpointAges: (ages) => reported.push([...ages]) },
    });
    // Act
    await handler({}, lambdaContext());
    // Assess
    expect(reported).toEqual([[{ cluster: 'a', ageMs: 90_000 }]]);
  });
});
