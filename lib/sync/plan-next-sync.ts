/**
 * What the next sync of a DaemonSet would do, without doing it: the one
 * orchestrator (`syncDaemonSet`) runs on the cluster as it is, with write
 * ports that record instead of writing (dry-run-ports.ts). So `plan` and
 * `explain` answer with the reconciler's own decisions, not a re-derivation
 * that could drift from them.
 */
import { toError } from '../errors.js';
import { parseDaemonSetKey } from '../keys.js';
import type {
  Clock,
  ClusterReader,
  ExpectationsStore,
  FailedPodBackoffStore,
  Logger,
} from '../ports/index.js';
import type { BackoffEntry } from '../reconcile/backoff-policy.js';
import type { DaemonSet, Node, Pod } from '../reconcile/k8s/types.js';
import { readOnDeleteOptIn } from '../reconcile/on-delete/rollout-annotation.js';
import {
  DryRunBackoff,
  DryRunExpectations,
  DryRunWrites,
  type PlannedWrite,
} from './dry-run-ports.js';
import { syncDaemonSet } from './sync-daemon-set.js';

/** The reconcilers' state a plan may read (the state table), when reachable. */
export interface ReconcilerState {
  expectations: ExpectationsStore;
  failedPodBackoff: FailedPodBackoffStore;
}

/** What the next sync would read and write. */
export interface NextSync {
  /** The DaemonSet as read; undefined when it does not exist. */
  daemonSet?: DaemonSet;
  nodes: readonly Node[];
  /** The pods of the sync's last listing (its selector's, owned or not). */
  pods: readonly Pod[];
  /** The current revision's hash (absent when the sync failed before). */
  hash?: string;
  /** Whether expectations let the sync act (else it writes status only). */
  expectationsMet: boolean;
  /** Whether expectations and backoff came from the reconcilers' state. */
  stateRead: boolean;
  writes: readonly PlannedWrite[];
  /** Failed-pod backoff entries read, by store id. */
  backoff: ReadonlyMap<string, BackoffEntry>;
  requeueAfterMs?: number;
  /** Why the sync would fail (it would be retried with backoff). */
  error?: string;
}

const nothing = () => undefined;
const quiet: Logger = {
  debug: nothing,
  info: nothing,
  warn: nothing,
  error: nothing,
};

/** Returns a reader that keeps the DaemonSet, nodes and pods it returned. */
export const keepingReads = (reader: ClusterReader) => {
  const seen = {
    daemonSet: undefined as DaemonSet | undefined,
    nodes: [] as readonly Node[],
    pods: [] as readonly Pod[],
  };
  const wrapped: ClusterReader = {
    getDaemonSet: async (ns, name) => {
      seen.daemonSet = await reader.getDaemonSet(ns, name);
      return seen.daemonSet;
    },
    getDaemonSetFresh: (ns, name) => reader.getDaemonSetFresh(ns, name),
    listNodes: async (v) => {
      seen.nodes = await reader.listNodes(v);
      return [...seen.nodes];
    },
    listPods: async (ns, owner, v) => {
      seen.pods = await reader.listPods(ns, owner, v);
      return [...seen.pods];
    },
    getPod: (ns, name) => reader.getPod(ns, name),
    listControllerRevisions: (ns) => reader.listControllerRevisions(ns),
    getControllerRevisionFresh: (ns, name) =>
      reader.getControllerRevisionFresh(ns, name),
  };
  return { wrapped, seen };
};

/**
 * Returns what a sync of `key` (`cluster/namespace/name`) would do now. With
 * `state`, expectations and failed-pod backoff are the reconcilers'; without,
 * expectations count as met and no node is in backoff.
 *
 * @example
 * const next = await planNextSync('prod/kube-system/agent', { reader, clock });
 * next.writes.filter((w) => w.verb === 'create-pod');
 */
export const planNextSync = async (
  key: string,
  {
    reader,
    clock,
    state,
  }: { reader: ClusterReader; clock: Clock; state?: ReconcilerState }
): Promise<NextSync> => {
  const { wrapped, seen } = keepingReads(reader);
  const writes = new DryRunWrites();
  const expectations = new DryRunExpectations(clock, state?.expectations);
  const failedPodBackoff = new DryRunBackoff(state?.failedPodBackoff);
  const expectationsMet = await expectations.satisfiedExpectations(key);
  let result: Awaited<ReturnType<typeof syncDaemonSet>> | undefined;
  let error: string | undefined;
  try {
    const { namespace, name } = parseDaemonSetKey(key);
    const ds = await reader.getDaemonSet(namespace, name);
    result = await syncDaemonSet(key, {
      // An opted-in OnDelete DaemonSet is planned as the OnDelete mode
      // syncs it (the registry's mode is not known here).
      rollsOnDeleteOnly: ds !== undefined && readOnDeleteOptIn(ds).optedIn,
      reader: wrapped,
      podControl: writes,
      revisionControl: writes,
      statusWriter: writes,
      events: writes,
      expectations,
      failedPodBackoff,
      clock,
      logger: quiet,
    });
  } catch (e) {
    error = toError(e).message;
  }
  const daemonSet = result?.read?.daemonSet ?? seen.daemonSet;
  return {
    ...(daemonSet === undefined ? {} : { daemonSet }),
    nodes: seen.nodes,
    pods: result?.read?.pods ?? seen.pods,
    ...(result?.read?.hash === undefined ? {} : { hash: result.read.hash }),
    expectationsMet,
    stateRead: state !== undefined,
    writes: writes.writes,
    backoff: failedPodBackoff.read,
    ...(result?.requeueAfterMs === undefined
      ? {}
      : { requeueAfterMs: result.requeueAfterMs }),
    ...(error === undefined ? {} : { error }),
  };
};
