/**
 * The metrics the code emits, found by running every emitter the functions
 * run (the metrics sink in both of its modes, the bridge's and the
 * dispatcher's counts) under the namespace and `service` of the function
 * that runs it, and reading the EMF blobs they write. The dashboard test
 * checks each metric the dashboard names against this list, so a metric
 * renamed or re-dimensioned in the code fails the test instead of leaving
 * an empty graph.
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import {
  METRICS_NAMESPACE,
  METRICS_SERVICE,
} from '#lib/adapters/powertools/lambda-observability.js';
import { PowertoolsMetricsSink } from '#lib/adapters/powertools/powertools-metrics-sink.js';
import { recordDispatchMetrics } from '#lib/handlers/bridge-dispatch-handler.js';
import { recordBridgeMetrics } from '#lib/handlers/watch-bridge-handler.js';
import { emfBlobsOf } from '../../helpers/emf-blobs.js';

/** One metric as CloudWatch files it: namespace, name, dimension names. */
export interface EmittedMetric {
  namespace: string;
  name: string;
  /** Dimension names, sorted. */
  dimensions: string[];
  /** The value of the `service` dimension. */
  service: string;
}

/** What the emitters wrote. */
export interface EmittedMetrics {
  metrics: EmittedMetric[];
  /** Top-level keys of the reconcile function's blobs (Logs Insights fields). */
  reconcileFields: Set<string>;
}

interface EmfBlob {
  _aws: {
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string }[];
    }[];
  };
  service: string;
  [field: string]: unknown;
}

/** Returns the EMF blobs written to stdout while `act` runs. */
const blobsOf = (act: () => void): EmfBlob[] => emfBlobsOf<EmfBlob>(act);

const metricsOf = (blobs: EmfBlob[]): EmittedMetric[] =>
  blobs.flatMap((b) =>
    b._aws.CloudWatchMetrics.flatMap((d) =>
      d.Dimensions.flatMap((dims) =>
        d.Metrics.map((m) => ({
          namespace: d.Namespace,
          name: m.Name,
          dimensions: [...dims].sort(),
          service: b.service,
        }))
      )
    )
  );

const sink = (service: string, perCluster: boolean) =>
  new PowertoolsMetricsSink({
    namespace: METRICS_NAMESPACE,
    serviceName: service,
    perCluster,
  });

/** Runs every emitter once per metrics mode and returns what they wrote. */
export const emittedMetrics = (): EmittedMetrics => {
  const reconcile = blobsOf(() => {
    for (const perCluster of [false, true]) {
      // The reconcile function's sink (the Reconciler's calls).
      const s = sink(METRICS_SERVICE.reconcile, perCluster);
      s.recordSync({
        cluster: 'c1',
        outcome: 'synced',
        durationMs: 1,
        creates: 1,
        deletes: 1,
        queueLagMs: 1,
        budgetUsage: { throttled: 1, waitMs: 1 },
      });
      s.recordClusterUnhealthy('c1', 1);
      s.recordControllerConflict('c1');
      s.recordFleetRollout('agent', 'Halted');
      s.recordPoison('malformed-key');
      s.recordInvalidClusterRecord('c1');
    }
  });
  const bridge = blobsOf(() => {
    for (const perCluster of [false, true]) {
      // The dispatcher's sink (under the bridge's service).
      sink(METRICS_SERVICE.bridge, perCluster).recordCheckpointAges([
        { cluster: 'c1', ageMs: 1_000 },
      ]);
    }
    const metrics = new Metrics({
      namespace: METRICS_NAMESPACE,
      serviceName: METRICS_SERVICE.bridge,
    });
    recordBridgeMetrics(metrics, [
      { cluster: 'c1', outcome: 'done', events: 1 },
    ]);
    recordDispatchMetrics(metrics, {
      clusters: 1,
      invalidRecords: 0,
      launchedTurns: 1,
      launchedClusters: ['c1'],
      failedLaunches: 0,
      failedClaims: 0,
      fleetRolloutsWoken: 0,
    });
    metrics.publishStoredMetrics();
  });
  return {
    metrics: [...metricsOf(reconcile), ...metricsOf(bridge)],
    reconcileFields: new Set(reconcile.flatMap((b) => Object.keys(b))),
  };
};

/** Returns a metric as one comparable line. */
export const describeMetric = (m: EmittedMetric): string =>
  `${m.namespace} ${m.name} {${m.dimensions.join(',')}} service=${m.service}`;
