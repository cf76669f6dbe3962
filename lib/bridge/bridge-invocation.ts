/**
 * One invocation of the bridge function: the turn the dispatcher launched,
 * a few clusters at most (one, in economy mode). Each cluster's run is on
 * its own — a cluster that cannot be reached, times out, rejects
 * credentials or was removed meanwhile fails alone (logged, reported),
 * never delaying the others. A run stops at its turn's end, or shortly
 * before the function times out, whichever comes first.
 */
import { InvalidClusterRecordError } from '../cluster/record.js';
import { toError } from '../errors.js';
import { withFields } from '../logging.js';
import type {
  BridgeLeaseStore,
  BridgeTurn,
  Clock,
  ClusterConnection,
  ClusterRecord,
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
  registry: Pick<ClusterRegistry, 'get'>;
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
  resyncSeconds: number;
  /** Lease duration (default: the bridge's); tests shorten it. */
  leaseTtlMs?: number;
  /** Stops every cluster's run early, cleanly (tests, shutdown). */
  signal?: AbortSignal;
}

/** One cluster's outcome, failures and invalid or missing records included. */
export type ClusterRunResult =
  | ClusterBridgeReport
  | { cluster: string; outcome: 'failed'; error: string }
  | { cluster: string; outcome: 'invalid-record'; error: string }
  | { cluster: string; outcome: 'unregistered' };

/** Runs the turn's clusters at once; never throws for one cluster. */
export const runBridgeTurn = async (
  deps: BridgeInvocationDeps,
  turn: BridgeTurn,
  opts: BridgeInvocationOptions
): Promise<ClusterRunResult[]> => {
  const latestStop =
    deps.clock.now() + opts.remainingMs - BRIDGE_STOP_MARGIN_MS;
  return Promise.all(
    turn.clusters.map(async (part): Promise<ClusterRunResult> => {
      const { cluster } = part;
      const logger = withFields(deps.logger, { cluster });
      let connection: ClusterConnection | undefined;
      try {
        const record = await readRecord(deps, cluster);
        if (typeof record === 'string') {
          logger.error('invalid cluster record; not bridged', {
            error: record,
          });
          return { cluster, outcome: 'invalid-record', error: record };
        }
        if (record === undefined) {
          logger.info('cluster no longer registered; not bridged');
          return { cluster, outcome: 'unregistered' };
        }
        connection = await deps.connect(record);
        const report = await runClusterBridge(
          {
            ...deps,
            cluster,
            ownerKind: ownedKind(record.ownership).kind,
            watch: connection.watch,
            holder: opts.invocationId,
            logger,
          },
          {
            // The record's mode, not the turn's: a switch made since the
            // launch applies from this run on.
            mode: record.bridgeMode,
            deadlineMs: Math.min(latestStop, part.stopAtMs),
            resyncEveryMs: opts.resyncSeconds * 1_000,
            ...(part.after ? { after: part.after } : {}),
            ...(opts.leaseTtlMs ? { leaseTtlMs: opts.leaseTtlMs } : {}),
            ...(opts.signal ? { signal: opts.signal } : {}),
          }
        );
        logger.info('bridge run ended', { ...report });
        return report;
      } catch (e) {
        const error = toError(e).message;
        logger.error('bridge run failed', { error });
        // The dispatcher backs the cluster off instead of relaunching it
        // at every tick.
        await deps.leases
          .recordFailure(cluster, opts.invocationId)
          .catch(() => undefined);
        return { cluster, outcome: 'failed', error };
      } finally {
        connection?.close();
      }
    })
  );
};

/** Returns the cluster's record, undefined when gone, or why it is invalid. */
const readRecord = async (
  deps: BridgeInvocationDeps,
  cluster: string
): Promise<ClusterRecord | undefined | string> => {
  try {
    return await deps.registry.get(cluster);
  } catch (e) {
    if (e instanceof InvalidClusterRecordError) return e.message;
    throw e;
  }
};
