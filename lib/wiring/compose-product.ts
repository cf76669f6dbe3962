/**
 * The product's composition, shared by both wirings (aws.ts for the Lambda
 * functions, local-runtime.ts for `npm start`): cluster sessions, the
 * reconciler and the bridge's ports, built from the stores each wiring
 * brings. One work queue and its one ledger join the bridge to the
 * reconciler, so what the bridge's adds saw (versions, pods to release) is
 * what the reconciler's syncs read back.
 */

import { MemorySlowStartMemory } from '../adapters/memory/memory-slow-start-memory.js';
import type { BridgeInvocationDeps } from '../bridge/bridge-invocation.js';
import type {
  BridgeLeaseStore,
  Clock,
  ClusterHealthStore,
  ClusterRecord,
  ClusterRegistry,
  ConnectCluster,
  ExpectationsStore,
  FailedPodBackoffStore,
  FleetRolloutStore,
  Logger,
  MetricsSink,
  NodeIndexStore,
  OwnershipStore,
  WorkQueue,
  WorkQueueLedger,
} from '../ports/index.js';
import { ClusterSessions } from '../worker/cluster-sessions.js';
import { Reconciler, type ReconcilerOptions } from '../worker/reconciler.js';

/** What a wiring brings: its stores, its clusters, its queue. */
export interface ProductPorts {
  registry: ClusterRegistry;
  connect: ConnectCluster;
  /** Drops a cached credential of the record (e.g. a Secrets Manager read). */
  forgetCredential?: (record: ClusterRecord) => void;
  /** The work queue both the bridge and the reconciler add to. */
  queue: WorkQueue;
  /** The same queue's ledger: what the adds saw, failures, marks. */
  ledger: WorkQueueLedger;
  expectations: ExpectationsStore;
  failedPodBackoff: FailedPodBackoffStore;
  health: ClusterHealthStore;
  ownership: OwnershipStore;
  leases: BridgeLeaseStore;
  nodeIndex: NodeIndexStore;
  clock: Clock;
  logger: Logger;
  metrics: MetricsSink;
  /** Where fleet rollouts keep their state (absent: none run). */
  fleetRollouts?: FleetRolloutStore;
  /** The reconciler's fleet-wide knobs, where the wiring has them. */
  reconcile?: Pick<
    ReconcilerOptions,
    'fieldManager' | 'slots' | 'maxSyncsPerCluster' | 'budget' | 'requestScope'
  >;
}

/** The parts every wiring runs. */
export interface Product {
  sessions: ClusterSessions;
  reconciler: Reconciler;
  bridge: BridgeInvocationDeps;
}

/** Returns the sessions, reconciler and bridge ports on the wiring's ports. */
export const composeProduct = (p: ProductPorts): Product => {
  const { registry, connect, queue, expectations, clock, logger } = p;
  const sessions = new ClusterSessions({
    registry,
    connect,
    ...(p.forgetCredential ? { forgetCredential: p.forgetCredential } : {}),
    expectations,
    failedPodBackoff: p.failedPodBackoff,
    clock,
    newSlowStartMemory: () => new MemorySlowStartMemory(),
  });
  return {
    sessions,
    reconciler: new Reconciler({
      sessions,
      health: p.health,
      ownership: p.ownership,
      ledger: p.ledger,
      queue,
      clock,
      logger,
      metrics: p.metrics,
      ...(p.fleetRollouts && {
        fleet: { store: p.fleetRollouts, registry },
      }),
      ...p.reconcile,
    }),
    bridge: {
      registry,
      connect,
      ...(p.forgetCredential ? { forgetCredential: p.forgetCredential } : {}),
      queue,
      expectations,
      leases: p.leases,
      nodeIndex: p.nodeIndex,
      clock,
      logger,
    },
  };
};
