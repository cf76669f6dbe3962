/**
 * WatchedCollection over a scripted source: when it lists, when it answers
 * from memory, how a seen version is waited for, and how a stream that
 * ended, went silent or expired (410) is recovered. The API server's side of
 * it (watch replay, NotOlderThan lists, gzip) is proven on the test bed in
 * test/integration/cached-reader.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  type CollectionSource,
  WatchedCollection,
} from '#lib/adapters/kube/client/watched-collection.js';
import { ApiErrorReason, KubeApiError } from '#lib/errors.js';
import type { WatchEvent } from '#lib/ports/index.js';
import type { Pod } from '#lib/reconcile/k8s/types.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';

const pod = (name: string, rv: string, phase = 'Running'): Pod => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv },
  status: { phase },
});

/** A source whose lists and watch streams the test drives. */
class ScriptedSource implements CollectionSource<Pod> {
  listed: Pod[] = [];
  listVersion = '10';
  readonly lists: (string | undefined)[] = [];
  readonly watches: string[] = [];
  #push: ((e: WatchEvent<Pod> | Error | 'end') => void) | undefined;

  async list(minVersion: string | undefined) {
    this.lists.push(minVersion);
    return { items: [...this.listed], resourceVersion: this.listVersion };
  }

  async *watch(resourceVersion: string, signal: AbortSignal) {
    this.watches.push(resourceVersion);
    const queue: (WatchEvent<Pod> | Error | 'end')[] = [];
    let wake: (() => void) | undefined;
    this.#push = (e) => {
      queue.push(e);
      wake?.();
    };
    signal.addEventListener('abort', () => wake?.());
    while (!signal.aborted) {
      const next = queue.shift();
      if (next === undefined) {
        await new Promise<void>((r) => {
          wake = r;
        });
        continue;
      }
      if (next === 'end') return;
      if (next instanceof Error) throw next;
      yield next;
    }
  }

  /** Sends an event (or an error, or the end) on the open stream. */
  async send(e: WatchEvent<Pod> | Error | 'end'): Promise<void> {
    this.#push?.(e);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const setup = (waitMs = 50) => {
  const clock = new FakeClock();
  const source = new ScriptedSource();
  source.listed = [pod('a', '8'), pod('b', '9')];
  const pods = new WatchedCollection(source, {
    waitMs,
    silentMs: 70_000,
    idleMs: 600_000,
    now: () => clock.now(),
    compact: (p) => ({ ...p, spec: { containers: [], nodeName: 'compacted' } }),
  });
  return { clock, source, pods };
};

const names = (pods: Pod[]) => pods.map((p) => p.metadata?.name).sort();

describe('WatchedCollection', () => {
  it('lists once, then answers from the watch without listing again', async () => {
    // Prepare
    const { source, pods } = setup();
    await pods.read();
    // Act
    await source.send({ type: 'ADDED', object: pod('c', '11') });
    await source.send({ type: 'DELETED', object: pod('a', '12') });
    await source.send({ type: 'MODIFIED', object: pod('b', '13', 'Failed') });
    const after = await pods.read('13');
    // Assess
    expect(source.lists).toEqual([undefined]);
    expect(source.watches).toEqual(['10']);
    expect(names(after)).toEqual(['b', 'c']);
    expect(after.find((p) => p.metadata?.name === 'b')?.status?.phase).toBe(
      'Failed'
    );
    expect(pods.stats).toMatchObject({ lists: 1, cachedReads: 1 });
  });

  it('lists once for concurrent reads of a cold collection (a batch’s syncs share the nodes)', async () => {
    // Prepare
    const { source, pods } = setup();
    // Act
    const all = await Promise.all([pods.read(), pods.read(), pods.read()]);
    // Assess
    expect(source.lists).toEqual([undefined]);
    expect(all.map(names)).toEqual([
      ['a', 'b'],
      ['a', 'b'],
      ['a', 'b'],
    ]);
  });

  it('lists again for a concurrent read that needs a newer version than the list in flight brought', async () => {
    // Prepare
    const { source, pods } = setup();
    // Act
    const first = pods.read();
    const newer = pods.read('15');
    await Promise.all([first, newer]);
    // Assess: the first list answered at 10, short of 15
    expect(source.lists).toEqual([undefined, '15']);
  });

  it('keeps objects compacted', async () => {
    // Prepare
    const { source, pods } = setup();
    // Act
    await pods.read();
    await source.send({ type: 'ADDED', object: pod('c', '11') });
    const all = await pods.read();
    // Assess
    expect(all.map((p) => p.spec?.nodeName)).toEqual([
      'compacted',
      'compacted',
      'compacted',
    ]);
  });

  it('waits for the seen version when the watch brings it in time', async () => {
    // Prepare
    const { source, pods } = setup(2_000);
    await pods.read();
    // Act
    const read = pods.read('11');
    await source.send({ type: 'ADDED', object: pod('c', '11') });
    const all = await read;
    // Assess
    expect(names(all)).toEqual(['a', 'b', 'c']);
    expect(source.lists).toEqual([undefined]);
  });

  it('lists no older than the seen version when the watch does not reach it (a stalled stream)', async () => {
    // Prepare
    const { source, pods } = setup();
    await pods.read();
    source.listed = [pod('a', '8'), pod('d', '20')];
    source.listVersion = '21';
    // Act: nothing arrives on the stream
    const all = await pods.read('20');
    // Assess
    expect(source.lists).toEqual([undefined, '20']);
    expect(names(all)).toEqual(['a', 'd']);
    expect(source.watches).toEqual(['10', '21']);
  });

  it('answers a read without a seen version from memory, stale or not (as an informer does)', async () => {
    // Prepare
    const { source, pods } = setup();
    await pods.read();
    source.listed = [];
    // Act
    const all = await pods.read();
    // Assess
    expect(names(all)).toEqual(['a', 'b']);
    expect(source.lists).toHaveLength(1);
  });

  it('lists anew with a consistent read when told to read the latest state (a redelivered sync)', async () => {
    // Prepare
    const { source, pods } = setup();
    await pods.read();
    source.listed = [pod('z', '30')];
    // Act
    const all = await pods.read('latest');
    // Assess
    expect(source.lists).toEqual([undefined, undefined]);
    expect(names(all)).toEqual(['z']);
  });

  it('counts bookmarks as progress', async () => {
    // Prepare
    const { source, pods } = setup();
    await pods.read();
    // Act
    await source.send({ type: 'BOOKMARK', object: pod('', '30') });
    await pods.read('30');
    // Assess
    expect(source.lists).toHaveLength(1);
  });

  it('resumes an ended stream from its version at the next read', async () => {
    // Prepare
    const { source, pods } = setup();
    await pods.read();
    await source.send({ type: 'ADDED', object: pod('c', '11') });
    // Act
    await source.send('end');
    await pods.read();
    // Assess
    expect(source.watches).toEqual(['10', '11']);
    expect(source.lists).toHaveLength(1);
  });

  it('resumes a stream silent for longer than silentMs (a thawed container)', async () => {
    // Prepare
    const { clock, source, pods } = setup();
    await pods.read();
    // Act
    clock.step(70_001);
    await pods.read();
    // Assess
    expect(source.watches).toEqual(['10', '10']);
  });

  it('resumes a stream cut by a network error without listing', async () => {
    // Prepare
    const { source, pods } = setup();
    await pods.read();
    // Act
    await source.send(new Error('socket hang up'));
    await pods.read();
    // Assess
    expect(source.lists).toHaveLength(1);
    expect(source.watches).toEqual(['10', '10']);
  });

  it('lists again after a 410 Gone', async () => {
    // Prepare
    const { source, pods } = setup();
    await pods.read();
    source.listVersion = '40';
    // Act
    await source.send(
      new KubeApiError('watch pods', {
        reason: ApiErrorReason.Gone,
        statusCode: 410,
      })
    );
    await pods.read();
    // Assess
    expect(source.lists).toEqual([undefined, undefined]);
    expect(source.watches).toEqual(['10', '40']);
  });

  it('lists afresh when unread for longer than idleMs', async () => {
    // Prepare
    const { clock, source, pods } = setup();
    await pods.read();
    // Act
    clock.step(600_001);
    await pods.read();
    // Assess
    expect(source.lists).toHaveLength(2);
  });

  it('keeps nothing when versions are not numbers: every read lists', async () => {
    // Prepare
    const { source, pods } = setup();
    source.listVersion = 'opaque';
    // Act
    await pods.read();
    await pods.read();
    // Assess
    expect(source.lists).toHaveLength(2);
    expect(source.watches).toEqual([]);
  });

  it('forgets everything when closed', async () => {
    // Prepare
    const { source, pods } = setup();
    await pods.read();
    // Act
    pods.close();
    const size = pods.size;
    await pods.read();
    // Assess
    expect(size).toBe(0);
    expect(source.lists).toHaveLength(2);
  });
});
