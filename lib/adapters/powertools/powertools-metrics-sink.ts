/**
 * MetricsSink on Powertools Metrics: CloudWatch embedded metric format
 * written to stdout (no PutMetricData calls), one blob per sync. By default
 * the metrics are fleet-wide (dimension `service` only) and the cluster is
 * a property of the blob, searchable in Logs Insights: a custom metric per
 * cluster costs $0.30 a month each, about $2.70 per cluster-month for the
 * eight of a sync and the bridge's checkpoint age, most of an idle cluster's
 * bill. `perCluster` adds a second dimension set with the cluster, so a
 * sick cluster shows up on its own graph (opt-in); the fleet-wide series,
 * which the alarms watch, stay.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { RolloutPhase } from '../../fleet/fleet-rollout-state.js';
import type {
  CheckpointAge,
  MetricsSink,
  SyncMeasurement,
} from '../../ports/index.js';

/** Writes sync measurements as EMF under `namespace`. */
export class PowertoolsMetricsSink implements MetricsSink {
  readonly #namespace: string;
  readonly #serviceName: string;
  readonly #perCluster: boolean;

  constructor(o: {
    namespace: string;
    serviceName: string;
    /** The cluster as a metric dimension (one metric set per cluster). */
    perCluster?: boolean;
  }) {
    this.#namespace = o.namespace;
    this.#serviceName = o.serviceName;
    this.#perCluster = o.perCluster ?? false;
  }

  #metrics(cluster: string): Metrics {
    const metrics = new Metrics({
      namespace: this.#namespace,
      serviceName: this.#serviceName,
    });
    if (this.#perCluster) {
      // Both series: the fleet-wide one the alarms watch, and the cluster's.
      metrics.addDimensions({});
      metrics.addDimensions({ cluster });
    } else {
      metrics.addMetadata('cluster', cluster);
    }
    return metrics;
  }

  recordSync(m: SyncMeasurement): void {
    const metrics = this.#metrics(m.cluster);
    metrics.addMetric('Syncs', MetricUnit.Count, 1);
    metrics.addMetric(
      'SyncErrors',
      MetricUnit.Count,
      m.outcome === 'synced' ? 0 : 1
    );
    metrics.addMetric('PodsCreated', MetricUnit.Count, m.creates);
    metrics.addMetric('PodsDeleted', MetricUnit.Count, m.deletes);
    metrics.addMetric('SyncDuration', MetricUnit.Milliseconds, m.durationMs);
    metrics.addMetric('QueueLag', MetricUnit.Milliseconds, m.queueLagMs);
    metrics.addMetric(
      'ApiThrottles',
      MetricUnit.Count,
      m.budgetUsage.throttled
    );
    metrics.addMetric(
      'BudgetWait',
      MetricUnit.Milliseconds,
      m.budgetUsage.waitMs
    );
    metrics.publishStoredMetrics();
  }

  /**
   * Writes BridgeCheckpointAge in seconds: per cluster with the dimension,
   * else one fleet-wide value, the stalest cluster's, that cluster as a
   * property (one blob a tick, however many clusters).
   */
  recordCheckpointAges(ages: readonly CheckpointAge[]): void {
    const perBlob = this.#perCluster ? ages : stalest(ages);
    for (const { cluster, ageMs } of perBlob) {
      const metrics = this.#metrics(cluster);
      metrics.addMetric('BridgeCheckpointAge', MetricUnit.Seconds, ageMs / 1e3);
      metrics.publishStoredMetrics();
    }
  }

  recordClusterUnhealthy(cluster: string, failures: number): void {
    const metrics = this.#metrics(cluster);
    metrics.addMetric('ClusterUnhealthy', MetricUnit.Count, 1);
    metrics.addMetric('ClusterFailures', MetricUnit.Count, failures);
    metrics.publishStoredMetrics();
  }

  recordControllerConflict(cluster: string): void {
    const metrics = this.#metrics(cluster);
    metrics.addMetric('ControllerConflicts', MetricUnit.Count, 1);
    metrics.publishStoredMetrics();
  }

  /**
   * FleetRollouts by `phase` (the fleet-wide series the halt alarm
   * watches); the policy is a property of the blob.
   */
  recordFleetRollout(policy: string, phase: RolloutPhase): void {
    const metrics = new Metrics({
      namespace: this.#namespace,
      serviceName: this.#serviceName,
    });
    metrics.addDimension('phase', phase);
    metrics.addMetadata('fleetRollout', policy);
    metrics.addMetric('FleetRollouts', MetricUnit.Count, 1);
    metrics.publishStoredMetrics();
  }

  /** InvalidClusterRecords: the name the bridge and dispatcher count under. */
  recordInvalidClusterRecord(cluster: string): void {
    const metrics = this.#metrics(cluster);
    metrics.addMetric('InvalidClusterRecords', MetricUnit.Count, 1);
    metrics.publishStoredMetrics();
  }

  /** A poison message has no cluster: one series per reason, in both modes. */
  recordPoison(reason: string): void {
    const metrics = new Metrics({
      namespace: this.#namespace,
      serviceName: this.#serviceName,
    });
    metrics.addDimension('reason', reason);
    metrics.addMetric('PoisonMessages', MetricUnit.Count, 1);
    metrics.publishStoredMetrics();
  }
}

/** Returns the stalest age of `ages` alone (none when empty). */
const stalest = (ages: readonly CheckpointAge[]): CheckpointAge[] =>
  ages.length === 0 ? [] : [ages.reduce((a, b) => (b.ageMs > a.ageMs ? b : a))];
