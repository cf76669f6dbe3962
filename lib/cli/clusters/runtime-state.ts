/**
 * What `clusters check` adds to a cluster's check: the state the
 * reconcilers recorded for it (fight detection's fence, the breaker).
 */
import { DEFAULT_API_CEILING } from '../../policy/request-budget.js';
import type {
  BridgeLeaseStore,
  ClusterHealthStore,
  ClusterRecord,
  LeaseView,
  OwnershipStore,
} from '../../ports/index.js';

/** What the reconcilers recorded about a cluster: fence and breaker. */
export const runtimeState = async (
  id: string,
  deps: {
    ownership: Pick<OwnershipStore, 'getFence'>;
    health: Pick<ClusterHealthStore, 'get'>;
  }
) => {
  const fence = await deps.ownership.getFence(id);
  const health = await deps.health.get(id);
  const lines: string[] = [];
  if (fence !== undefined) {
    lines.push(
      `  FENCED since ${new Date(fence.fencedAtMs).toISOString()}: ${fence.reason}`
    );
  }
  if (health !== undefined) {
    const open = health.openUntilMs > Date.now();
    lines.push(
      `  reconcilers saw ${health.failures} cluster-level failure(s)${open ? `, backed off until ${new Date(health.openUntilMs).toISOString()}` : ''}; last: ${health.lastError}`
    );
  }
  return { fenced: fence !== undefined, lines, json: { fence, health } };
};

/** A cluster's row state in `clusters list`. */
export interface ClusterState {
  /** Ready, Unhealthy (breaker open), or Fenced. */
  status: string;
  /** What its bridge is doing: running, idle, failing ×N, never. */
  bridge: string;
  /** The ceiling of the API budget its reconcilers share, `qps/burst`. */
  budget: string;
  /** When its bridge last checkpointed (absent: not yet). */
  checkpointedAtMs?: number;
  /** Its node count at that checkpoint. */
  nodes?: number;
}

/** Returns every cluster's state, read from fences, breakers and leases. */
export const clusterStates = async (
  records: readonly ClusterRecord[],
  deps: {
    ownership: Pick<OwnershipStore, 'getFence'>;
    health: Pick<ClusterHealthStore, 'get'>;
    leases: Pick<BridgeLeaseStore, 'peek'>;
  },
  nowMs = Date.now()
): Promise<Map<string, ClusterState>> => {
  const leases = await deps.leases.peek(records.map((r) => r.id));
  const states = new Map<string, ClusterState>();
  await Promise.all(
    records.map(async (r) => {
      const [fence, health] = await Promise.all([
        deps.ownership.getFence(r.id),
        deps.health.get(r.id),
      ]);
      const status =
        fence !== undefined
          ? 'Fenced'
          : health !== undefined && health.openUntilMs > nowMs
            ? `Unhealthy (${health.failures} failures)`
            : 'Ready';
      const budget = r.apiBudget ?? DEFAULT_API_CEILING;
      const lease = leases.get(r.id);
      states.set(r.id, {
        status,
        bridge: bridgeState(lease, nowMs),
        budget: `${budget.qps}/${budget.burst}`,
        ...(lease?.checkpointedAtMs === undefined
          ? {}
          : { checkpointedAtMs: lease.checkpointedAtMs }),
        ...(lease?.size === undefined ? {} : { nodes: lease.size.nodes }),
      });
    })
  );
  return states;
};

/** Returns what a cluster's bridge is doing, as its lease tells. */
const bridgeState = (lease: LeaseView | undefined, nowMs: number): string => {
  if (lease === undefined) return 'never';
  if (lease.holder !== undefined && lease.leaseUntilMs >= nowMs) {
    return 'running';
  }
  if (lease.failures !== undefined) {
    return `failing ×${lease.failures.count}`;
  }
  return 'idle';
};
