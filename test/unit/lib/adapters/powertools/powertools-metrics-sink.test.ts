/**
 * The metrics sink's cost shape (F13): fleet-wide metrics by default, the
 * cluster as a property of the EMF blob; per-cluster dimensions opt-in.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PowertoolsMetricsSink } from '#lib/adapters/powertools/powertools-metrics-sink.js';
import { emfBlobsOf } from '../../../../helpers/emf-blobs.js';

/** Returns the EMF blobs the sink writes while `act` runs. */
const emfOf = (act: () => void) => emfBlobsOf(act);

const dimensionsOf = (blob: Record<string, unknown>): string[][] =>
  (
    blob._aws as { CloudWatchMetrics: { Dimensions: string[][] }[] }
  ).CloudWatchMetrics.flatMap((m) => m.Dimensions);

const sync = {
  cluster: 'prod-eu',
  outcome: 'synced' as const,
  durationMs: 120,
  creates: 2,
  deletes: 0,
  queueLagMs: 40,
  budgetUsage: { throttled: 3, waitMs: 250 },
};

describe('PowertoolsMetricsSink', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes fleet-wide metrics by default, the cluster as a property', () => {
    const [blob] = emfOf(() =>
      new PowertoolsMetricsSink({
        namespace: 'Test',
        serviceName: 'reconcile',
      }).recordSync(sync)
    );
    expect(blob).toBeDefined();
    expect(dimensionsOf(blob ?? {})).toEqual([['service']]);
    expect(blob).toMatchObject({
      cluster: 'prod-eu',
      Syncs: 1,
      PodsCreated: 2,
      ApiThrottles: 3,
      BudgetWait: 250,
    });
  });

  it('adds a per-cluster dimension set beside the fleet-wide one the alarms watch, when asked', () => {
    const [blob] = emfOf(() =>
      new PowertoolsMetricsSink({
        namespace: 'Test',
        serviceName: 'reconcile',
        perCluster: true,
      }).recordSync(sync)
    );
    expect(dimensionsOf(blob ?? {})).toEqual([
      ['service'],
      ['service', 'cluster'],
    ]);
  });

  it.each([false, true])(
    'counts a poison message by reason alone (per-cluster %s): it has no cluster',
    (perCluster) => {
      // Act
      const [blob] = emfOf(() =>
        new PowertoolsMetricsSink({
          namespace: 'Test',
          serviceName: 'reconcile',
          perCluster,
        }).recordPoison('malformed-key')
      );
      // Assess
      expect(dimensionsOf(blob ?? {})).toEqual([['service', 'reason']]);
      expect(blob).toMatchObject({
        reason: 'malformed-key',
        PoisonMessages: 1,
      });
      expect(blob).not.toHaveProperty('cluster');
    }
  );

  describe('recordCheckpointAges', () => {
    const ages = [
      { cluster: 'a', ageMs: 12_000 },
      { cluster: 'b', ageMs: 420_000 },
      { cluster: 'c', ageMs: 3_000 },
    ];

    it('writes one fleet-wide blob a tick: the stalest cluster’s age in seconds, that cluster as a property', () => {
      // Act
      const blobs = emfOf(() =>
        new PowertoolsMetricsSink({
          namespace: 'Test',
          serviceName: 'watch-bridge',
        }).recordCheckpointAges(ages)
      );
      // Assess
      expect(blobs).toHaveLength(1);
      expect(dimensionsOf(blobs[0] ?? {})).toEqual([['service']]);
      expect(blobs[0]).toMatchObject({
        cluster: 'b',
        BridgeCheckpointAge: 420,
      });
    });

    it('writes one blob per cluster with the cluster dimension when asked', () => {
      // Act
      const blobs = emfOf(() =>
        new PowertoolsMetricsSink({
          namespace: 'Test',
          serviceName: 'watch-bridge',
          perCluster: true,
        }).recordCheckpointAges(ages)
      );
      // Assess
      expect(
        blobs.map((b) => [b.cluster, b.BridgeCheckpointAge, dimensionsOf(b)])
      ).toEqual([
        ['a', 12, [['service'], ['service', 'cluster']]],
        ['b', 420, [['service'], ['service', 'cluster']]],
        ['c', 3, [['service'], ['service', 'cluster']]],
      ]);
    });

    it('writes nothing when no cluster has checkpointed', () => {
      // Act
      const blobs = emfOf(() =>
        new PowertoolsMetricsSink({
          namespace: 'Test',
          serviceName: 'watch-bridge',
        }).recordCheckpointAges([])
      );
      // Assess
      expect(blobs).toEqual([]);
    });
  });
});
