/**
 * One scheduled invocation of the watch-bridge: every registered cluster
 * whose lease this invocation can take gets its own bridge run, all at once
 * and each on its own — a cluster that cannot be reached, times out or
 * rejects credentials fails alone (logged, reported), never delaying the
 * others. Watch-mode clusters are watched until shortly before the function
 * times out; economy-mode clusters are drained and left.
 */
import { toError } from '../errors.js';
import { withFields } from '../logging.js';
import type {
  BridgeLeaseStore,
  Clock,
  ClusterConnection,
  ClusterRegistry,
  ConnectCluster,
  ExpectationsStore,
  Logger,
  NodeIndexStore,
  WorkQueue,
} from '../ports/index.js';
import { ownedKind } from '../reconcile/k8s/daemon-set-kind.js';
import {
  type ClusterBridgeReport,
  runClusterBridge,
} from './cluster-bridge.js';

/** Time kept back before the function's own timeout for the checkpoint. */
export const BRIDGE_STOP_MARGIN_MS = 20_000;

/** What a bridge invocation needs. */
export interface BridgeInvocationDeps {
  registry: ClusterRegistry;
  connect: ConnectCluster;
  queue: WorkQueue;
  expectations: ExpectationsStore;
  leases: BridgeLeaseStore;
  nodeIndex: NodeIndexStore;
  clock: Clock;
  logger: Logger;
}

/** How long this invocation may run. */
export interface BridgeInvocationOptions {
  /** This invocation's id (the lease holder). */
  invocationId: string;
  /** Milliseconds left before the function times out. */
  remainingMs: number;
  watchSeconds: number;
  economySeconds: number;
  resyncSeconds: number;
  /** Lease duration (default: the bridge's); tests shorten it. */
  leaseTtlMs?: number;
  /** Stops every cluster's run early, cleanly (tests, shutdown). */
  signal?: AbortSignal;
}

/** One cluster's outcome, failures and invalid registry items included. */
export type ClusterRunResult =
  | ClusterBridgeReport
  | { cluster: string; outcome: 'failed'; error: string }
  | { cluster: string; outcome: 'invalid-record'; error: string };

/** Runs the bridge of every registered cluster; never throws for one cluster. */
export const runBridgeInvocation = async (
  deps: BridgeInvocationDeps,
  opts: BridgeInvocationOptions
): Promise<ClusterRunResult[]> => {
  const started = deps.clock.now();
  const latestStop = started + opts.remainingMs - BRIDGE_STOP_MARGIN_MS;
  const { records, invalid } = await deps.registry.list();
  // A bad item is skipped, logged and counted; the others run.
  const skipped = invalid.map((item): ClusterRunResult => {
    deps.logger.error('invalid cluster record skipped', {
      record: item.key,
      error: item.error,
      invalidRecords: invalid.length,
    });
    return { cluster: item.key, outcome: 'invalid-record', error: item.error };
  });
  const runs = await Promise.all(
    records.map(async (record): Promise<ClusterRunResult> => {
      const logger = withFields(deps.logger, { cluster: record.id });
      const seconds =
        record.bridgeMode === 'watch' ? opts.watchSeconds : opts.economySeconds;
      const deadlineMs = Math.min(latestStop, started + seconds * 1_000);
      let connection: ClusterConnection | undefined;
      try {
        connection = await deps.connect(record);
        const report = await runClusterBridge(
          {
            ...deps,
            cluster: record.id,
            ownerKind: ownedKind(record.ownership).kind,
            watch: connection.watch,
            holder: opts.invocationId,
            logger,
          },
          {
            mode: record.bridgeMode,
            deadlineMs,
            resyncEveryMs: opts.resyncSeconds * 1_000,
            ...(opts.leaseTtlMs ? { leaseTtlMs: opts.leaseTtlMs } : {}),
            ...(opts.signal ? { signal: opts.signal } : {}),
          }
        );
        logger.info('bridge run ended', { ...report });
        return report;
      } catch (e) {
        const error = toError(e).message;
        logger.error('bridge run failed', { error });
        return { cluster: record.id, outcome: 'failed', error };
      } finally {
        connection?.close();
      }
    })
  );
  return [...skipped, ...runs];
};
