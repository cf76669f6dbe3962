/**
 * What `clusters check` adds to a cluster's check: the state the
 * reconcilers recorded for it (fight detection's fence, the breaker).
 */
import type { ClusterHealthStore, OwnershipStore } from '../ports/index.js';

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
