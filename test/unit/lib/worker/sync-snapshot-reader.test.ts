/**
 * SyncSnapshotReader: one list each per sync, passed the versions the sync's
 * wake-ups saw, plus the pods the bridge saw the owner keep outside its
 * selector (read live, so that the sync releases them).
 */
import { describe, expect, it } from 'vitest';
import type { ClusterReader } from '#lib/ports/index.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import {
  newerVersion,
  SyncSnapshotReader,
} from '#lib/worker/sync-snapshot-reader.js';
import {
  makeNodes,
  newDaemonSet,
  newPod,
  simpleDaemonSetLabel,
} from '#test/helpers/builders.js';
import { newHarness } from '#test/helpers/harness.js';

const relabelled = (pod: Pod): Pod => ({
  ...pod,
  metadata: { ...pod.metadata, labels: { name: 'moved-away' } },
});

const setup = () => {
  const h = newHarness();
  const ds = newDaemonSet('foo');
  const other = newDaemonSet('bar');
  const selected = newPod('in-', 'node-0', simpleDaemonSetLabel, ds);
  const outside = relabelled(
    newPod('out-', 'node-1', simpleDaemonSetLabel, ds)
  );
  const foreign = relabelled(
    newPod('x-', 'node-2', simpleDaemonSetLabel, other)
  );
  h.cluster.daemonSets.push(ds, other);
  h.cluster.nodes.push(...makeNodes(0, 3));
  h.cluster.pods.push(selected, outside, foreign);
  // The fake lists what the selector matches, as the API server would.
  const byName = (p: Pod) => p.metadata?.name as string;
  const listPods = h.cluster.listPods.bind(h.cluster);
  h.cluster.listPods = async (ns: string) =>
    (await listPods(ns)).filter(
      (p) => p.metadata?.labels?.name !== 'moved-away'
    );
  return { h, ds, names: [selected, outside, foreign].map(byName) };
};

describe('SyncSnapshotReader', () => {
  it('adds the owned pods outside the selector that the wake-ups named', async () => {
    // Prepare
    const { h, ds, names } = setup();
    const [inName, outName, foreignName] = names as [string, string, string];
    const reader = new SyncSnapshotReader(h.cluster, {
      releasePods: [inName, outName, foreignName, 'gone'],
    });
    // Act
    const pods = await reader.listPods('default', ds);
    // Assess: listed once, the owned one added, another owner's and a gone one left out
    expect(pods.map((p) => p.metadata?.name)).toEqual([inName, outName]);
  });

  it('reads nothing more without names', async () => {
    // Prepare
    const { h, ds, names } = setup();
    const reader = new SyncSnapshotReader(h.cluster);
    // Act
    const pods = await reader.listPods('default', ds);
    // Assess
    expect(pods.map((p) => p.metadata?.name)).toEqual([names[0]]);
  });

  it('lists nodes and pods once per sync, with the seen versions', async () => {
    // Prepare
    const { h, ds } = setup();
    const asked: (string | undefined)[] = [];
    const listNodes = h.cluster.listNodes.bind(h.cluster);
    h.cluster.listNodes = async (seen?: string) => {
      asked.push(seen);
      return listNodes();
    };
    const reader = new SyncSnapshotReader(h.cluster, { nodes: '42' });
    // Act
    const [a, b] = [await reader.listNodes(), await reader.listNodes()];
    const [p, q] = [
      await reader.listPods('default', ds),
      await reader.listPods('default', ds),
    ];
    // Assess
    expect(asked).toEqual(['42']);
    expect(a).toBe(b);
    expect(p).toBe(q);
  });

  it('one-daemon-pod-per-node: lists pods at the newer of the wake-up versions and those noted since, read when pods are first listed (campaign seed 349)', async () => {
    // Prepare: the sync began at pods version 100; the bridge then noted a
    // create's version 130 before lowering the expectations this sync found
    // satisfied, so its list must include that pod.
    const { h, ds } = setup();
    const asked: (string | undefined)[] = [];
    const inner: ClusterReader = new Proxy(h.cluster, {
      get: (cluster, name) =>
        name === 'listPods'
          ? async (ns: string, _owner: DaemonSet, seen?: string) => {
              asked.push(seen);
              return cluster.listPods(ns);
            }
          : Reflect.get(cluster, name),
    });
    let reads = 0;
    const reader = new SyncSnapshotReader(inner, { pods: '100' }, async () => {
      reads++;
      return { pods: '130' };
    });
    // Act
    await reader.listNodes();
    const before = reads;
    await reader.listPods('default', ds);
    await reader.listPods('default', ds);
    // Assess: read after the sync's earlier steps, once, and the newer wins.
    expect(before).toBe(0);
    expect(reads).toBe(1);
    expect(asked).toEqual(['130']);
  });
});

describe('newerVersion', () => {
  it('returns the newer resourceVersion, numerically', () => {
    expect(newerVersion('99', '100')).toBe('100');
    expect(newerVersion('100', '99')).toBe('100');
    expect(newerVersion(undefined, '7')).toBe('7');
    expect(newerVersion('7', undefined)).toBe('7');
    expect(newerVersion(undefined, undefined)).toBeUndefined();
  });

  it("lets a version that is not a number (a consistent read, 'latest') win", () => {
    expect(newerVersion('latest', '100')).toBe('latest');
    expect(newerVersion('100', 'latest')).toBe('latest');
  });
});
