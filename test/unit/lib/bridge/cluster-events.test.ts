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
  simpleDaemonSetLabel2,
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

const newEvents = (
  expectations = new MemoryExpectationsStore({ clock: new FakeClock() }),
  clock = new FakeClock()
) => {
  const queue = new RecordingQueue();
  const events = new ClusterEvents({
    cluster: 'c1',
    ownerKind: 'DaemonSet',
    watch: {} as ClusterWatch,
    queue,
    expectations,
    clock,
  });
  return { queue, events, expectations };
};

/** One pod event, its writes flushed at once (as a quiet watch would). */
const podEvent = async (
  events: ClusterEvents,
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  pod: Pod
) => {
  await events.onEvent('pods', type, pod);
  await events.flushPods();
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
    await podEvent(events, 'MODIFIED', pod);
    queue.added = [];
    const moved = bump(pod, '6');
    const [refToB] = newPod('q-', 'n1', {}, b).metadata?.ownerReferences ?? [];
    if (moved.metadata && refToB) moved.metadata.ownerReferences = [refToB];
    // Act
    await podEvent(events, 'MODIFIED', moved);
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
    const beforeFlush = [...queue.seen];
    await events.flushPods();
    // Assess: nothing is written before the flush.
    expect(beforeFlush).toEqual([]);
    expect(queue.seen).toEqual([{ collection: 'pods', resourceVersion: '12' }]);
  });

  it('one-daemon-pod-per-node: a bridge run that replays pod events from an older checkpoint lowers nothing twice', async () => {
    // Prepare: a run lowers a sync's expectations for p0 (of three
    // creates) and dies before its checkpoint; the sync is redelivered,
    // drops them and sets its own for one create.
    const first = newEvents();
    const a = newDaemonSet('a');
    const key = `c1/${a.metadata?.namespace}/a`;
    const created = ['31', '32', '33'].map((rv, i) =>
      bump(newPod(`p${i}-`, `n${i}`, simpleDaemonSetLabel, a), rv)
    );
    await first.events.onEvent('daemonSets', 'ADDED', a);
    await first.expectations.setExpectations(key, 3, 0);
    await podEvent(first.events, 'ADDED', created[0] as Pod);
    const second = newEvents(first.expectations);
    await second.events.onEvent('daemonSets', 'ADDED', a);
    // Act: the successor resumes before p0 and sees p0 and p1 in one batch.
    await second.events.onEvent('pods', 'ADDED', created[0] as Pod);
    await second.events.onEvent('pods', 'ADDED', created[1] as Pod);
    await second.events.flushPods();
    const afterReplay = await first.expectations.satisfiedExpectations(key);
    await first.expectations.deleteExpectations(key);
    await first.expectations.setExpectations(key, 1, 0);
    await podEvent(second.events, 'ADDED', created[1] as Pod);
    // Assess: p2 is still expected; a replay never lowers a later record.
    expect(afterReplay).toBe(false);
    expect(first.expectations.get(key)).toMatchObject({ add: 1, del: 0 });
  });

  it('writes a burst of pod events as one lowering and one add per key, with the newest version', async () => {
    // Prepare
    const { queue, events, expectations } = newEvents();
    const a = newDaemonSet('a');
    await events.onEvent('daemonSets', 'ADDED', a);
    const key = `c1/${a.metadata?.namespace}/a`;
    await expectations.setExpectations(key, 3, 0);
    queue.added = [];
    queue.seen = [];
    // Act: three creations observed, then one flush.
    for (const [i, rv] of ['21', '22', '23'].entries()) {
      await events.onEvent(
        'pods',
        'ADDED',
        bump(newPod(`p${i}-`, `n${i}`, simpleDaemonSetLabel, a), rv)
      );
    }
    await events.flushPods();
    // Assess
    expect(queue.added).toEqual([key]);
    expect(queue.seen).toEqual([{ collection: 'pods', resourceVersion: '23' }]);
    expect(expectations.get(key)).toMatchObject({ add: 0, del: 0 });
    expect(await expectations.satisfiedExpectations(key)).toBe(true);
  });

  it('finishes a failed batch before the next, writing each once', async () => {
    // Prepare
    const { queue, events } = newEvents();
    const a = newDaemonSet('a');
    const b = newDaemonSet('b');
    await events.onEvent('daemonSets', 'ADDED', a);
    await events.onEvent('daemonSets', 'ADDED', b);
    queue.added = [];
    const add = queue.add.bind(queue);
    let fail = true;
    queue.add = async (key, seen) => {
      if (fail && key.endsWith('/b')) throw new Error('throttled');
      await add(key, seen);
    };
    await events.onEvent(
      'pods',
      'ADDED',
      newPod('a-', 'n1', simpleDaemonSetLabel, a)
    );
    await events.onEvent(
      'pods',
      'ADDED',
      newPod('b-', 'n1', simpleDaemonSetLabel2, b)
    );
    // Act
    const failed = await events.flushPods().catch((e: Error) => e.message);
    fail = false;
    await events.onEvent(
      'pods',
      'ADDED',
      newPod('c-', 'n2', simpleDaemonSetLabel, a)
    );
    await events.flushPods();
    // Assess: a once per batch, b once after its retry.
    expect(failed).toBe('throttled');
    expect(queue.added.filter((k) => k.endsWith('/a'))).toHaveLength(2);
    expect(queue.added.filter((k) => k.endsWith('/b'))).toHaveLength(1);
  });

  it('names an owned pod relabelled out of the selector for release', async () => {
    // Prepare
    const { queue, events } = newEvents();
    const a = newDaemonSet('a');
    await events.onEvent('daemonSets', 'ADDED', a);
    const pod = bump(newPod('p-', 'n1', simpleDaemonSetLabel, a), '5');
    await podEvent(events, 'ADDED', pod);
    queue.seen = [];
    const moved = bump(pod, '6');
    if (moved.metadata) moved.metadata.labels = { name: 'moved-away' };
    // Act
    await podEvent(events, 'MODIFIED', moved);
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
    await podEvent(events, 'ADDED', pod);
    await podEvent(events, 'DELETED', pod);
    queue.added = [];
    // Act
    await podEvent(events, 'MODIFIED', bump(pod, '7'));
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
    await podEvent(events, 'ADDED', pod);
    // Act
    for (let i = 6; i < 16; i++) {
      await podEvent(events, 'MODIFIED', bump(pod, String(i)));
    }
    // Assess
    expect(queue.delayed).toEqual([]);
    expect(new Set(queue.added)).toEqual(new Set(['c1/default/a']));
  });

  it('arms no minReadySeconds timer for the first update in a run of a pod Ready for longer than minReadySeconds', async () => {
    // Prepare: a new run; the pod has been Ready for an hour.
    const clock = new FakeClock(3_600_000);
    const { queue, events } = newEvents(undefined, clock);
    const ds = newDaemonSet('a');
    if (ds.spec) ds.spec.minReadySeconds = 10;
    await events.onEvent('daemonSets', 'ADDED', ds);
    const pod = markPodReady(
      bump(newPod('p-', 'n1', simpleDaemonSetLabel, ds), '5'),
      0
    );
    // Act
    await podEvent(events, 'MODIFIED', pod);
    // Assess
    expect(queue.delayed).toEqual([]);
    expect(new Set(queue.added)).toEqual(new Set(['c1/default/a']));
  });
});
