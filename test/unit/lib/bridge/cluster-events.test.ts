/**
 * ClusterEvents over fakes of its ports: a pod re-parented from A to B in
 * one update wakes A too (upstream `updatePod` enqueues the old owner),
 * once this bridge run has seen the pod before.
 */
import { describe, expect, it } from 'vitest';
import { MemoryExpectationsStore } from '#lib/adapters/memory/memory-expectations-store.js';
import { ClusterEvents } from '#lib/bridge/cluster-events.js';
import type { ClusterWatch, SeenVersion, WorkQueue } from '#lib/ports/index.js';
import type { Pod } from '#lib/reconcile/k8s/types.js';
import {
  markPodReady,
  newDaemonSet,
  newPod,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';
import { FakeClock } from '../../../helpers/fakes/fake-clock.js';

class RecordingQueue implements WorkQueue {
  added: string[] = [];
  seen: (SeenVersion | undefined)[] = [];
  async add(key: string, seen?: SeenVersion) {
    this.added.push(key);
    this.seen.push(seen);
  }
  delayed: string[] = [];
  async addAfter(key: string) {
    this.added.push(key);
    this.delayed.push(key);
  }
  async addAnew(key: string) {
    this.added.push(key);
  }
}

const newEvents = () => {
  const queue = new RecordingQueue();
  const events = new ClusterEvents({
    cluster: 'c1',
    ownerKind: 'DaemonSet',
    watch: {} as ClusterWatch,
    queue,
    expectations: new MemoryExpectationsStore({ clock: new FakeClock() }),
  });
  return { queue, events };
};

const bump = (pod: Pod, rv: string): Pod => ({
  ...pod,
  metadata: { ...pod.metadata, resourceVersion: rv },
});

describe('ClusterEvents pod updates', () => {
  it('wakes the old owner when one update moves a pod from A to B (F17)', async () => {
    // Prepare
    const { queue, events } = newEvents();
    const a = newDaemonSet('a');
    const b = newDaemonSet('b');
    await events.onEvent('daemonSets', 'ADDED', a);
    await events.onEvent('daemonSets', 'ADDED', b);
    const pod = bump(newPod('p-', 'n1', simpleDaemonSetLabel, a), '5');
    await events.onEvent('pods', 'MODIFIED', pod);
    queue.added = [];
    const moved = bump(pod, '6');
    const [refToB] = newPod('q-', 'n1', {}, b).metadata?.ownerReferences ?? [];
    if (moved.metadata && refToB) moved.metadata.ownerReferences = [refToB];
    // Act
    await events.onEvent('pods', 'MODIFIED', moved);
    // Assess
    expect([...new Set(queue.added)].sort()).toEqual([
      'c1/default/a',
      'c1/default/b',
    ]);
  });

  it('queues the owner with the version of the pod event, so its sync reads that fresh', async () => {
    // Prepare
    const { queue, events } = newEvents();
    const a = newDaemonSet('a');
    await events.onEvent('daemonSets', 'ADDED', a);
    queue.seen = [];
    // Act
    await events.onEvent(
      'pods',
      'ADDED',
      bump(newPod('p-', 'n1', simpleDaemonSetLabel, a), '12')
    );
    // Assess
    expect(queue.seen).toEqual([{ collection: 'pods', resourceVersion: '12' }]);
  });

  it('names an owned pod relabelled out of the selector for release', async () => {
    // Prepare
    const { queue, events } = newEvents();
    const a = newDaemonSet('a');
    await events.onEvent('daemonSets', 'ADDED', a);
    const pod = bump(newPod('p-', 'n1', simpleDaemonSetLabel, a), '5');
    await events.onEvent('pods', 'ADDED', pod);
    queue.seen = [];
    const moved = bump(pod, '6');
    if (moved.metadata) moved.metadata.labels = { name: 'moved-away' };
    // Act
    await events.onEvent('pods', 'MODIFIED', moved);
    // Assess
    expect(queue.added).toContain('c1/default/a');
    expect(queue.seen).toContainEqual({
      collection: 'pods',
      resourceVersion: '6',
      releasePod: moved.metadata?.name,
    });
  });

  it('forgets a deleted pod, so a pod of the same UID starts unknown', async () => {
    // Prepare
    const { queue, events } = newEvents();
    const a = newDaemonSet('a');
    await events.onEvent('daemonSets', 'ADDED', a);
    const pod = bump(newPod('p-', 'n1', simpleDaemonSetLabel, a), '5');
    await events.onEvent('pods', 'ADDED', pod);
    await events.onEvent('pods', 'DELETED', pod);
    queue.added = [];
    // Act
    await events.onEvent('pods', 'MODIFIED', bump(pod, '7'));
    // Assess
    expect([...new Set(queue.added)]).toEqual(['c1/default/a']);
  });

  it('arms no minReadySeconds timer for ten status updates of a pod already Ready (F19)', async () => {
    // Prepare
    const { queue, events } = newEvents();
    const ds = newDaemonSet('a');
    if (ds.spec) ds.spec.minReadySeconds = 10;
    await events.onEvent('daemonSets', 'ADDED', ds);
    const pod = markPodReady(
      bump(newPod('p-', 'n1', simpleDaemonSetLabel, ds), '5'),
      0
    );
    await events.onEvent('pods', 'ADDED', pod);
    // Act
    for (let i = 6; i < 16; i++) {
      await events.onEvent('pods', 'MODIFIED', bump(pod, String(i)));
    }
    // Assess
    expect(queue.delayed).toEqual([]);
    expect(new Set(queue.added)).toEqual(new Set(['c1/default/a']));
  });
});
