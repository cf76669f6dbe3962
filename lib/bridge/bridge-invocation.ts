/**
 * One invocation of the bridge function: the turn the dispatcher launched,
 * a few clusters at most (one, in economy mode). Each cluster's run is on
 * its own — a cluster that cannot be reached, times out, rejects
 * credentials or was removed meanwhile fails alone (logged, reported),
 * never delaying the others. A run stops at its turn's end, or shortly
 * before the function times out, whichever comes first. A run refused 401
 * forgets the cached credential and runs once more on a fresh read.
 */
import { InvalidClusterRecordError } from '../cluster/record.js';
import { ApiErrorReason, isApiError, toError } from '../errors.js';
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
import { abortableSleep } from './abortable-sleep.js';
import {
  type ClusterBridgeReport,
  runClusterBridge,
} from './cluster-bridge.js';

/** Time kept back before the function's own timeout for the checkpoint. */
export const BRIDGE_STOP_MARGIN_MS = 20_000;

/**
 * The least a run watches, whatever its turn's end: that end is set by the
 * dispatcher's clock, and a container whose clock runs ahead by more than
 * a short turn would find it passed and watch nothing, turn after turn.
 * Far below a production turn.
 */
export const MIN_RUN_MS = 5_000;

/**
 * Returns when a cluster's run stops: at its turn's end, but not before
 * MIN_RUN_MS from now, and never past the function's own latest stop.
 */
export const runDeadlineMs = (
  nowMs: number,
  latestStopMs: number,
  stopAtMs: number
): number => Math.min(latestStopMs, Math.max(stopAtMs, nowMs + MIN_RUN_MS));

/** A failed watch-mode run is run again after 1 s, doubling to 30 s. */
const RUN_RETRY_INITIAL_MS = 1_000;
const RUN_RETRY_MAX_MS = 30_000;

/** What a bridge invocation needs. */
export interface BridgeInvocationDeps {
  registry: Pick<ClusterRegistry, 'get'>;
  connect: ConnectCluster;
  /** Drops a cached credential of the record (a secret read, an EKS token). */
  forgetCredential?: (record: ClusterRecord) => void;
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
        const deadlineMs = runDeadlineMs(
          deps.clock.now(),
          latestStop,
          part.stopAtMs
        );
        let first = true;
        const run = async (): Promise<ClusterBridgeReport> => {
          const open = await deps.connect(record);
          connection = open;
          return retryWithinTurn(
            (firstRun) =>
              runClusterBridge(
                {
                  ...deps,
                  cluster,
                  ownerKind: ownedKind(record.ownership).kind,
                  watch: open.watch,
                  holder: opts.invocationId,
                  logger,
                },
                {
                  // The record's mode, not the turn's: a switch made since
                  // the launch applies from this run on.
                  mode: record.bridgeMode,
                  deadlineMs,
                  resyncEveryMs: opts.resyncSeconds * 1_000,
                  ...(firstRun && first && part.after
                    ? { after: part.after }
                    : {}),
                  ...(opts.leaseTtlMs ? { leaseTtlMs: opts.leaseTtlMs } : {}),
                  ...(opts.signal ? { signal: opts.signal } : {}),
                }
              ),
            {
              retry: record.bridgeMode === 'watch',
              deadlineMs,
              clock: deps.clock,
              logger,
              ...(opts.signal ? { signal: opts.signal } : {}),
            }
          );
        };
        let report: ClusterBridgeReport;
        try {
          report = await run();
        } catch (e) {
          const { forgetCredential } = deps;
          if (!isUnauthorized(e) || forgetCredential === undefined) throw e;
          // A rotated credential: this container's copy is stale. Read it
          // again and run once more; a second refusal fails the run.
          logger.warn('credentials rejected; reading them again', {
            error: toError(e).message,
          });
          forgetCredential(record);
          connection?.close();
          connection = undefined;
          first = false;
          report = await run();
        }
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

/**
 * A watch-mode run that failed (DynamoDB or the API server refusing for a
 * moment) is run again within its turn after 1 s, doubling to 30 s, as
 * client-go's reflector retries its list and watch; otherwise the cluster
 * would go unwatched until the dispatcher's next tick and its backoff (the
 * fault campaign saw a NoExecute taint wait 20 s). Economy runs are cheap
 * by design and wait for the next tick. The last failure is thrown.
 */
export const retryWithinTurn = async (
  run: (first: boolean) => Promise<ClusterBridgeReport>,
  o: {
    retry: boolean;
    deadlineMs: number;
    clock: Clock;
    logger: Logger;
    signal?: AbortSignal;
  }
): Promise<ClusterBridgeReport> => {
  let retryMs = RUN_RETRY_INITIAL_MS;
  for (let first = true; ; first = false) {
    try {
      return await run(first);
    } catch (e) {
      const tooLate = o.clock.now() + retryMs >= o.deadlineMs;
      // A refused credential stays refused on this connection.
      if (!o.retry || tooLate || o.signal?.aborted || isUnauthorized(e)) {
        throw e;
      }
      o.logger.warn('bridge run failed; running it again', {
        error: toError(e).message,
        retryInMs: retryMs,
      });
      await abortableSleep(retryMs, o.signal);
      if (o.signal?.aborted) throw e;
      retryMs = Math.min(retryMs * 2, RUN_RETRY_MAX_MS);
    }
  }
};

const isUnauthorized = (e: unknown): boolean =>
  isApiError(e, ApiErrorReason.Unauthorized);

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
