/**
 * Loads and saves the failed-pod backoff entries one `manage` pass needs, so
 * the planner stays pure.
 */

import type { BackoffEntry } from '../reconcile/backoff-policy.js';
import { nameOf } from '../reconcile/k8s/meta.js';
import type { Node, Pod } from '../reconcile/k8s/types.js';
import { failedPodsBackoffKey } from '../reconcile/pods-should-be-on-node.js';
import type { SyncContext } from './context.js';

/** Returns the stored entries of nodes that have a Failed daemon pod. */
export const loadFailedPodBackoff = async (
  ctx: SyncContext,
  nodes: readonly Node[],
  byNode: ReadonlyMap<string, readonly Pod[]>
): Promise<Map<string, BackoffEntry>> => {
  const keys = nodes
    .map(nameOf)
    .filter((name) =>
      (byNode.get(name) ?? []).some((p) => p.status?.phase === 'Failed')
    )
    .map((name) => failedPodsBackoffKey(ctx.ds, name));
  const entries = new Map<string, BackoffEntry>();
  for (const key of keys) {
    const entry = await ctx.deps.failedPodBackoff.get(storeKey(ctx, key));
    if (entry !== undefined) entries.set(key, entry);
  }
  return entries;
};

/** Returns the store id: upstream's key scoped by cluster. */
const storeKey = (ctx: SyncContext, key: string): string =>
  `${ctx.dsKey.cluster}/${key}`;

/** Persists the entries the planner advanced. */
export const saveFailedPodBackoff = async (
  ctx: SyncContext,
  updates: readonly { key: string; entry: BackoffEntry }[]
): Promise<void> => {
  for (const { key, entry } of updates) {
    await ctx.deps.failedPodBackoff.put(storeKey(ctx, key), entry);
  }
};
