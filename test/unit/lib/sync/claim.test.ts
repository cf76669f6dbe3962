/**
 * One claim pass per pod listing within a sync (claim.ts): later phases of
 * the sync reuse a pass that patched nothing, and redo one that adopted or
 * released, or one over a new listing.
 */
import { describe, expect, it } from 'vitest';
import { parseDaemonSetKey } from '#lib/keys.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import { placementOnce } from '#lib/reconcile/node-should-run.js';
import { getDaemonPods, nodesToDaemonPods } from '#lib/sync/claim.js';
import type { SyncContext } from '#lib/sync/context.js';
import {
  markPodDeleting,
  newDaemonSet,
  newPod,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';
import { addDaemonSet, keyOf, newHarness } from '../../../helpers/harness.js';

/**
 * Returns a sync context whose reader lists pods once, as the worker's
 * SyncSnapshotReader does, unless `relist`.
 */
const contextOf = (ds: DaemonSet, relist = false) => {
  const h = newHarness();
  addDaemonSet(h, ds);
  let listing: Promise<Pod[]> | undefined;
  const reader = Object.create(h.cluster) as typeof h.cluster;
  reader.listPods = (namespace: string) => {
    if (relist) return h.cluster.listPods(namespace);
    listing ??= h.cluster.listPods(namespace);
    return listing;
  };
  const ctx: SyncContext = {
    key: keyOf(ds),
    dsKey: parseDaemonSetKey(keyOf(ds)),
    ds,
    deps: { ...h.deps, reader },
    read: { daemonSet: ds, pods: [] },
    placement: placementOnce(ds),
  };
  return { h, ctx };
};

describe('getDaemonPods and nodesToDaemonPods (one claim pass per listing)', () => {
  it('gives every later phase the first pass over the same listing, and its grouping', async () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const { h, ctx } = contextOf(ds);
    const gone = markPodDeleting(
      newPod('foo-', 'node-2', simpleDaemonSetLabel, ds),
      0
    );
    gone.status = { phase: 'Succeeded' };
    h.cluster.pods.push(
      newPod('foo-', 'node-1', simpleDaemonSetLabel, ds),
      gone
    );
    // Act
    const first = await getDaemonPods(ctx);
    const manage = await nodesToDaemonPods(ctx, false);
    const status = await nodesToDaemonPods(ctx, false);
    const history = await nodesToDaemonPods(ctx, true);
    // Assess
    expect(await getDaemonPods(ctx)).toBe(first);
    expect(first).toHaveLength(2);
    expect(status).toBe(manage);
    expect([...manage.keys()]).toEqual(['node-1']);
    expect([...history.keys()]).toEqual(['node-1', 'node-2']);
    expect(await nodesToDaemonPods(ctx, true)).toBe(history);
    expect(h.cluster.patches).toEqual([]);
  });

  it('claims again after a pass that adopted, as upstream passes over a stale lister do', async () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const { h, ctx } = contextOf(ds);
    h.cluster.pods.push(newPod('orphan-', 'node-1', simpleDaemonSetLabel));
    // Act
    const first = await getDaemonPods(ctx);
    const second = await getDaemonPods(ctx);
    // Assess
    expect(second).not.toBe(first);
    expect(second).toEqual(first);
    expect(h.cluster.patches.map((p) => p.name)).toHaveLength(2);
  });

  it('claims a new listing anew', async () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const { h, ctx } = contextOf(ds, true);
    h.cluster.pods.push(newPod('foo-', 'node-1', simpleDaemonSetLabel, ds));
    // Act
    const first = await nodesToDaemonPods(ctx, false);
    h.cluster.pods.push(newPod('foo-', 'node-2', simpleDaemonSetLabel, ds));
    const second = await nodesToDaemonPods(ctx, false);
    // Assess
    expect([...first.keys()]).toEqual(['node-1']);
    expect([...second.keys()]).toEqual(['node-1', 'node-2']);
  });
});
