/**
 * What syncDaemonSet returns of what it read: the DaemonSet as it stood at
 * the start of the sync and the pods of its last pod listing — what fight
 * detection inspects after the sync, with no side channel.
 */
import { describe, expect, it } from 'vitest';
import {
  makeNodes,
  makePods,
  newDaemonSet,
  newPod,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';
import { addDaemonSet, newHarness, sync } from '../../../helpers/harness.js';

describe('syncDaemonSet', () => {
  describe('what it returns of what it read', () => {
    it('returns the DaemonSet and every pod its listing matched, owned or not', async () => {
      // Prepare
      const h = newHarness();
      const ds = addDaemonSet(h, newDaemonSet('foo'));
      h.cluster.nodes = makeNodes(0, 2);
      const owned = makePods('node-0', simpleDaemonSetLabel, ds, 1);
      const orphan = newPod('orphan-', 'node-1', simpleDaemonSetLabel);
      h.cluster.pods = [...owned, orphan];
      // Act
      const { result } = await sync(h, ds);
      // Assess
      expect(result?.read?.daemonSet.metadata?.uid).toBe(ds.metadata?.uid);
      expect(result?.read?.pods.map((p) => p.metadata?.name).sort()).toEqual(
        [...owned, orphan].map((p) => p.metadata?.name).sort()
      );
    });

    it('returns no pods when it stops before listing them (deleted DaemonSet)', async () => {
      // Prepare
      const h = newHarness();
      const ds = newDaemonSet('foo');
      if (ds.metadata) ds.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
      addDaemonSet(h, ds);
      h.cluster.nodes = makeNodes(0, 1);
      h.cluster.pods = makePods('node-0', simpleDaemonSetLabel, ds, 1);
      // Act
      const { result } = await sync(h, ds);
      // Assess
      expect(result?.read?.daemonSet.metadata?.name).toBe('foo');
      expect(result?.read?.pods).toEqual([]);
    });

    it('returns nothing read when the DaemonSet is gone', async () => {
      // Prepare
      const h = newHarness();
      const ds = newDaemonSet('foo');
      // Act
      const { result } = await sync(h, ds);
      // Assess
      expect(result).toEqual({});
    });
  });
});
